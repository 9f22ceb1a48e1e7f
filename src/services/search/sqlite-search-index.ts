import type { EntityManager } from 'typeorm';
import type { SearchIndex, SearchOptions } from './search-index.js';

/**
 * Each word becomes a quoted FTS5 string (quotes doubled) with a prefix
 * star, so no input can be read as FTS5 syntax: `NEAR(`, `*`, `-`, quotes
 * and brackets are just characters. Words are ANDed. A NUL character would
 * end the string early for SQLite's parser ("unterminated string"), so it
 * reads as a space, which separates tokens as any punctuation does.
 */
export function fts5Query(words: readonly string[]): string {
  return words.map((word) => `"${word.replaceAll('\0', ' ').replaceAll('"', '""')}"*`).join(' ');
}

/** SQLite FTS5: the `memory_search` virtual table, rowid = memory id, ranked by bm25. */
export class SqliteSearchIndex implements SearchIndex {
  async index(manager: EntityManager, memory: { id: number; title: string; text: string }): Promise<void> {
    await manager.query('DELETE FROM "memory_search" WHERE rowid = ?', [memory.id]);
    await manager.query('INSERT INTO "memory_search" (rowid, title, body) VALUES (?, ?, ?)', [memory.id, memory.title, memory.text]);
  }

  async search(reader: EntityManager, options: SearchOptions) {
    const where: string[] = ['"memory_search" MATCH ?', 'm."sessionId" IS NULL'];
    const params: unknown[] = [fts5Query(options.words)];
    if (options.domain) {
      where.push('(m."domain" = ? OR substr(m."domain", 1, ?) = ?)');
      params.push(options.domain, options.domain.length + 1, `${options.domain}/`);
    }
    if (options.kind) {
      where.push('m."kind" = ?');
      params.push(options.kind);
    }
    const matched = `SELECT m."id" AS "memoryId", bm25("memory_search", 10.0, 1.0) AS "rank"
      FROM "memory_search" JOIN "memories" m ON m."id" = "memory_search".rowid
      WHERE ${where.join(' AND ')}`;
    const [{ total }] = await reader.query(`SELECT count(*) AS "total" FROM (${matched})`, params);
    const pageParams = [...params];
    let keyset = '';
    if (options.after) {
      keyset = 'WHERE "rank" > ? OR ("rank" = ? AND "memoryId" > ?)';
      pageParams.push(options.after[0], options.after[0], options.after[1]);
    }
    const hits = await reader.query(
      `SELECT "memoryId", "rank" FROM (${matched}) ${keyset} ORDER BY "rank", "memoryId" LIMIT ?`,
      [...pageParams, options.limit],
    );
    return { hits: hits.map((h: { memoryId: number; rank: number }) => ({ memoryId: Number(h.memoryId), rank: Number(h.rank) })), total: Number(total) };
  }
}
