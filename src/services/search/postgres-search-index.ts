import type { EntityManager } from 'typeorm';
import { foldAccents, wordsOf } from '../../domain/search-words.js';
import { scopeCondition } from '../kernel/domain-scope.js';
import { num, selectRows } from '../kernel/statements.js';
import type { SearchIndex, SearchOptions } from './search-index.js';

/**
 * A text as PostgreSQL indexes it: accents folded and cut into the same
 * words as queries (the 'simple' parser alone would keep an e-mail address,
 * a host or a version number as one token that no word of a query matches).
 */
export function searchableText(text: string): string {
  return wordsOf(foldAccents(text)).join(' ');
}

/** The words as prefixes (`word:*`), joined by `joiner` (& for all, | for any); only letters, digits and marks, so never tsquery syntax. */
export function tsQuery(words: readonly string[], joiner: '&' | '|' = '&'): string | null {
  const terms = words.flatMap((word) => wordsOf(foldAccents(word).toLowerCase()));
  return terms.length ? terms.map((term) => `${term}:*`).join(` ${joiner} `) : null;
}

/**
 * PostgreSQL: a tsvector per memory, title weighted A and text B. Ranked by
 * the same tiers as on SQLite, read from the memory's own vector only: 0 when
 * every word is in the title, 1 when some word is, 2 otherwise.
 *
 * One statement whose cost follows the hits, not the collection: the hits
 * come from the GIN index on the vector (never fastupdate's pending list:
 * db/migrations/1764575000000-search-index.ts), each is checked against
 * its memory by primary key (a subquery per hit, so no planner joins every
 * memory to a few hits, as a hash join with a scan of memories would), and
 * the total and the page are read from those hits, materialized once.
 */
export class PostgresSearchIndex implements SearchIndex {
  async index(manager: EntityManager, memory: { id: number; title: string; text: string }): Promise<void> {
    await manager.query(
      `INSERT INTO "memory_search" ("memoryId", "document")
       VALUES ($1, setweight(to_tsvector('simple', $2), 'A') || setweight(to_tsvector('simple', $3), 'B'))
       ON CONFLICT ("memoryId") DO UPDATE SET "document" = EXCLUDED."document"`,
      [memory.id, searchableText(memory.title), searchableText(memory.text)],
    );
  }

  async search(reader: EntityManager, options: SearchOptions) {
    const all = tsQuery(options.words, '&');
    const any = tsQuery(options.words, '|');
    if (!all || !any) return { hits: [], total: 0 };
    const params: unknown[] = [all, any, all];
    const bind = (value: unknown) => (params.push(value), '?');
    const belongs: string[] = ['m."sessionId" IS NULL'];
    if (options.domain) belongs.push(scopeCondition('m."domain"', options.domain, bind));
    if (options.kind) belongs.push(`m."kind" = ${bind(options.kind)}`);
    const keyset = options.after
      ? `WHERE h."rank" > ${bind(options.after[0])} OR (h."rank" = ${bind(options.after[0])} AND h."memoryId" < ${bind(options.after[1])})`
      : '';
    const rows = await selectRows(reader,
      `WITH "hits" AS MATERIALIZED (
        SELECT s."memoryId",
          CASE WHEN ts_filter(s."document", '{a}') @@ to_tsquery('simple', ?) THEN 0
               WHEN ts_filter(s."document", '{a}') @@ to_tsquery('simple', ?) THEN 1
               ELSE 2 END AS "rank"
        FROM "memory_search" s
        WHERE s."document" @@ to_tsquery('simple', ?)
          AND (SELECT ${belongs.join(' AND ')} FROM "memories" m WHERE m."id" = s."memoryId"))
      SELECT t."total", p."memoryId", p."rank" FROM (SELECT count(*) AS "total" FROM "hits") t
      LEFT JOIN LATERAL (SELECT h."memoryId", h."rank" FROM "hits" h ${keyset} ORDER BY h."rank", h."memoryId" DESC LIMIT ${bind(options.limit)}) p ON TRUE`,
      params,
    );
    // (total, memoryId, rank): one row with a null hit when the page is empty.
    const hits = rows.filter(([, memoryId]) => memoryId !== null).map(([, memoryId, rank]) => ({ memoryId: num(memoryId), rank: num(rank) }));
    return { hits, total: num(rows[0]?.[0] ?? 0) };
  }
}
