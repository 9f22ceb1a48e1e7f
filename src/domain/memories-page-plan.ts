/**
 * How a memories page finds its ids, chosen from the kept counts before it
 * reads:
 * - ID_ORDER walks "memories" newest id first (its primary key) and keeps the
 *   rows of the scope's domains: it passes over about `limit × idSpan /
 *   matching` rows, whatever the number of domains.
 * - EACH_DOMAIN walks each domain's (domain, id) index back from the cursor
 *   for its newest `limit` matches and merges them: a start per domain, then
 *   about `limit × memories / matching` rows of each (all of a smaller one).
 */
export type MemoriesPagePlan = 'ID_ORDER' | 'EACH_DOMAIN';

/** One domain of the scope, from its kept counts: its memories, and how many of them the page's filter holds. */
export interface DomainMatches {
  memories: number;
  matching: number;
}

/**
 * What starting one domain's walk costs, in rows the id-order walk reads in
 * the same time. Measured at --scale large (125,000 memories, 500 domains):
 * each domain of the merge costs about 16 µs on PostgreSQL and 17 µs on SQLite
 * before it reads its rows, where the id-order walk reads a row in about
 * 0.14 µs (PostgreSQL) and 0.1–0.2 µs (SQLite).
 */
export const DOMAIN_WALK_START = 100;

/**
 * The plan that reads fewer rows for a page of `limit` ids, given the span of
 * ids in the table (its largest id: how many rows an id-order walk can pass
 * over, plans and other domains included) and the scope's domains that hold a
 * match. Measured at --scale large, page 1 and deep pages, with and without a
 * kind or status filter: org0 (100 domains, a fifth of all memories) read in id
 * order costs 0.2–0.5 ms where the merge costs 1.5–2 ms (5–13 ms with a
 * filter); one team (5 domains, 1 %) and one area (1 domain) read by the merge
 * cost 0.2–0.8 ms where the id-order walk costs 0.5–25 ms. On both databases.
 */
export function memoriesPagePlan(limit: number, idSpan: number, domains: readonly DomainMatches[]): MemoriesPagePlan {
  const matching = domains.reduce((sum, domain) => sum + domain.matching, 0);
  if (matching <= 0) return 'EACH_DOMAIN';
  const inIdOrder = (limit * idSpan) / matching;
  const eachDomain = domains.reduce(
    (rows, domain) => rows + DOMAIN_WALK_START + (domain.matching > 0 ? Math.min(domain.memories, (limit * domain.memories) / domain.matching) : 0),
    0,
  );
  return inIdOrder < eachDomain ? 'ID_ORDER' : 'EACH_DOMAIN';
}
