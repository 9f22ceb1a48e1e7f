import type { EntityManager } from 'typeorm';
import type { SearchIndex, SearchOptions } from './search-index.js';

/**
 * Each word (letters and digits only, accents folded) is searched as a
 * prefix (`word:*`), all ANDed, so no input is read as tsquery syntax. With
 * no word left the query matches nothing.
 */
export function tsQuery(words: readonly string[]): string | null {
  const terms = words.flatMap((word) => foldAccents(word).toLowerCase().split(/[^\p{L}\p{N}]+/u)).filter(Boolean);
  return terms.length ? terms.map((term) => `${term}:*`).join(' & ') : null;
}

/** "Crème brûlée" → "Creme brulee": documents and queries are folded alike, as FTS5's remove_diacritics does on SQLite. */
export function foldAccents(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '');
}

/**
 * PostgreSQL: a tsvector per memory (title weighted A, text B), ranked by
 * ts_rank, which reads only the memory's own vector: a stable rank.
 */
export class PostgresSearchIndex implements SearchIndex {
  async index(manager: EntityManager, memory: { id: number; title: string; text: string }): Promise<void> {
    await manager.query(
      `INSERT INTO "memory_search" ("memoryId", "document")
       VALUES ($1, setweight(to_tsvector('simple', $2), 'A') || setweight(to_tsvector('simple', $3), 'B'))
       ON CONFLICT ("memoryId") DO UPDATE SET "document" = EXCLUDED."document"`,
      [memory.id, foldAccents(memory.title), foldAccents(memory.text)],
    );
  }

  async search(reader: EntityManager, options: SearchOptions) {
    const query = tsQuery(options.words);
    if (!query) return { hits: [], total: 0 };
    const where: string[] = [`s."document" @@ to_tsquery('simple', $1)`, 'm."sessionId" IS NULL'];
    const params: unknown[] = [query];
    if (options.domain) {
      params.push(options.domain, options.domain.length + 1, `${options.domain}/`);
      where.push(`(m."domain" = $${params.length - 2} OR substr(m."domain", 1, $${params.length - 1}) = $${params.length})`);
    }
    if (options.kind) {
      params.push(options.kind);
      where.push(`m."kind" = $${params.length}`);
    }
    // Lower is better, as on SQLite: the negated rank.
    const matched = `SELECT m."id" AS "memoryId", -ts_rank(s."document", to_tsquery('simple', $1)) AS "rank"
      FROM "memory_search" s JOIN "memories" m ON m."id" = s."memoryId" WHERE ${where.join(' AND ')}`;
    const [{ total }] = await reader.query(`SELECT count(*) AS "total" FROM (${matched}) hits`, params);
    const pageParams = [...params];
    let keyset = '';
    if (options.after) {
      pageParams.push(options.after[0], options.after[1]);
      keyset = `WHERE "rank" > $${pageParams.length - 1} OR ("rank" = $${pageParams.length - 1} AND "memoryId" < $${pageParams.length})`;
    }
    pageParams.push(options.limit);
    const hits = await reader.query(`SELECT "memoryId", "rank" FROM (${matched}) hits ${keyset} ORDER BY "rank", "memoryId" DESC LIMIT $${pageParams.length}`, pageParams);
    return { hits: hits.map((h: { memoryId: number; rank: number }) => ({ memoryId: Number(h.memoryId), rank: Number(h.rank) })), total: Number(total) };
  }
}
