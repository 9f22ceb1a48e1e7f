import type { EntityManager } from 'typeorm';
import { scopeCondition } from '../kernel/domain-scope.js';
import { num, selectRows } from '../kernel/statements.js';
import type { SearchIndex, SearchOptions } from './search-index.js';

/** Each word as a quoted FTS5 prefix string (quotes doubled), so no input is read as FTS5 syntax. */
function quoted(words: readonly string[]): string[] {
  return words.map((word) => `"${word.replaceAll('"', '""')}"*`);
}

/** Every word, anywhere (ANDed). */
export function fts5Query(words: readonly string[]): string {
  return quoted(words).join(' ');
}

/**
 * SQLite FTS5: the `memory_search` virtual table, rowid = memory id. FTS5's
 * bm25 scores depend on the whole collection (a new note shifts every score),
 * which would make keyset cursors skip or repeat hits; the rank here is a
 * tier that depends on the memory alone: 0 when every word is in the title,
 * 1 when some word is, 2 when only the body (goal, labels) has them.
 */
export class SqliteSearchIndex implements SearchIndex {
  async index(manager: EntityManager, memory: { id: number; title: string; text: string }): Promise<void> {
    await manager.query('DELETE FROM "memory_search" WHERE rowid = ?', [memory.id]);
    await manager.query('INSERT INTO "memory_search" (rowid, title, body) VALUES (?, ?, ?)', [memory.id, memory.title, memory.text]);
  }

  async search(reader: EntityManager, options: SearchOptions) {
    const words = quoted(options.words);
    const inTitle = (joiner: string) => `{title} : (${words.join(joiner)})`;
    const where: string[] = ['"memory_search" MATCH ?', 'm."sessionId" IS NULL'];
    const params: unknown[] = [inTitle(' '), inTitle(' OR '), words.join(' ')];
    if (options.domain) {
      where.push(scopeCondition('m."domain"', options.domain, (value) => { params.push(value); return '?'; }));
    }
    if (options.kind) {
      where.push('m."kind" = ?');
      params.push(options.kind);
    }
    const matched = `SELECT m."id" AS "memoryId",
        CASE WHEN m."id" IN (SELECT rowid FROM "memory_search" WHERE "memory_search" MATCH ?) THEN 0
             WHEN m."id" IN (SELECT rowid FROM "memory_search" WHERE "memory_search" MATCH ?) THEN 1
             ELSE 2 END AS "rank"
      FROM "memory_search" JOIN "memories" m ON m."id" = "memory_search".rowid
      WHERE ${where.join(' AND ')}`;
    const [[total]] = await selectRows(reader, `SELECT count(*) AS "total" FROM (${matched})`, params);
    const pageParams = [...params];
    let keyset = '';
    if (options.after) {
      keyset = 'WHERE "rank" > ? OR ("rank" = ? AND "memoryId" < ?)';
      pageParams.push(options.after[0], options.after[0], options.after[1]);
    }
    const hits = await selectRows(reader, `SELECT "memoryId", "rank" FROM (${matched}) ${keyset} ORDER BY "rank", "memoryId" DESC LIMIT ?`, [...pageParams, options.limit]);
    return { hits: hits.map(([memoryId, rank]) => ({ memoryId: num(memoryId), rank: num(rank) })), total: num(total) };
  }
}
