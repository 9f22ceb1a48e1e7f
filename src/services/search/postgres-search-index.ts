import type { EntityManager } from 'typeorm';
import { foldAccents, wordsOf } from '../../domain/search-words.js';
import { scopeCondition } from '../kernel/domain-scope.js';
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
    const where: string[] = [`s."document" @@ to_tsquery('simple', $1)`, 'm."sessionId" IS NULL'];
    const params: unknown[] = [all, any];
    if (options.domain) {
      where.push(scopeCondition('m."domain"', options.domain, (value) => `$${params.push(value)}`));
    }
    if (options.kind) {
      params.push(options.kind);
      where.push(`m."kind" = $${params.length}`);
    }
    const matched = `SELECT m."id" AS "memoryId",
        CASE WHEN ts_filter(s."document", '{a}') @@ to_tsquery('simple', $1) THEN 0
             WHEN ts_filter(s."document", '{a}') @@ to_tsquery('simple', $2) THEN 1
             ELSE 2 END AS "rank"
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
