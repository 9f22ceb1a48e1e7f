import type { EntityManager } from 'typeorm';
import { cleanDomain } from '../../domain/domains.js';
import { searchWords } from '../../domain/search-words.js';
import { ROW_CURSOR, SEARCH_CURSOR, UPDATED_CURSOR, decodeCursor, pageFrom, pageSize, type MemoryOrder, type Page } from '../../domain/paging.js';
import { memoryColumns, memoryOf } from '../kernel/entity-rows.js';
import { distinct, placeholders, selectRows } from '../kernel/statements.js';
import type { MemoryStatus } from '../../domain/states.js';
import type { MemoryEntity } from '../../db/entities/index.js';
import type { MemoryKind } from '../../domain/memory-kind.js';
import type { SearchIndex } from '../search/search-index.js';
import { scopeCondition } from '../kernel/domain-scope.js';
import { CommittedCache } from '../kernel/committed-cache.js';
import { domainCounts, matchingCount, ownCountsIn, type DomainCounts } from './domain-counts.js';
import { memoriesPagePlan } from '../../domain/memories-page-plan.js';

/**
 * A task is ACTIVE while OPEN: the state its row keeps, derived from its
 * counts of live items by the domain's rule (db/task-counts.ts), so lists
 * filter and count on it without reading items. (NOT "archived" reads the
 * same on SQLite's 0/1 and PostgreSQL's booleans.)
 */
const TASK_IS_OPEN = `m."taskState" = 'OPEN'`;

const IS_ACTIVE = `(CASE WHEN m."kind" = 'NOTE' THEN NOT m."archived" ELSE ${TASK_IS_OPEN} END)`;

/**
 * Open knowledge-base tasks in any of `domains` (and below), most recently
 * updated first: what mustRead lists and what a reminder asks about.
 */
export function openTasksIn(manager: EntityManager, domains: readonly string[], limit: number): Promise<MemoryEntity[]> {
  if (domains.length === 0 || !Number.isSafeInteger(limit) || limit < 1) return Promise.resolve([]);
  // Only tasks have a state and a plan has no domain, so the open-tasks index (state, domain, updatedAt, id)
  // decides which rows and in what order by itself. For each domain the newest `limit` ids are chosen from
  // that index alone, one index range each (several ranges OR-ed together made SQLite scan every open task:
  // 29 ms for a session's two domains among 100,000 tasks, 0.7 ms this way), and only the rows of the newest
  // `limit` of those are read (sorting whole rows of every open task in scope read 700 rows to list 200).
  const values: string[] = [];
  const bind = (value: string) => (values.push(value), '?');
  const newestIn = (domain: string, index: number) =>
    `SELECT "id" FROM (SELECT m."id" FROM "memories" m WHERE ${TASK_IS_OPEN} AND ${scopeCondition('m."domain"', domain, bind)} ` +
    `ORDER BY m."updatedAt" DESC, m."id" DESC LIMIT ${limit}) "newest${index}"`;
  // The rows are joined to the chosen ids by primary key rather than looked up from an IN list, so SQLite
  // reads them in one pass with no list to build. Nested domains may choose one id twice, so the ids of several domains are a UNION.
  const ids = domains.map(newestIn).join(' UNION ');
  const sql = `SELECT ${memoryColumns('o')} FROM (${ids}) n JOIN "memories" o ON o."id" = n."id" ORDER BY o."updatedAt" DESC, o."id" DESC LIMIT ${limit}`;
  return selectRows(manager, sql, values).then((rows) => rows.map((row) => memoryOf(row)));
}

/** The memories with these ids (any order; unknown ids left out). */
export async function memoriesWithIds(manager: EntityManager, ids: readonly number[]): Promise<MemoryEntity[]> {
  if (ids.length === 0) return [];
  const wanted = distinct(ids);
  const sql = `SELECT ${memoryColumns('m')} FROM "memories" m WHERE m."id" IN (${placeholders(wanted.length)})`;
  return (await selectRows(manager, sql, wanted)).map((row) => memoryOf(row));
}

/** mustRead lists the most recently updated open tasks, this many at most. */
export const MUST_READ_MAX = 200;

/** domains() scopes kept at one committed version (each a tree of at most DOMAINS_LISTED_MAX paths). */
const DOMAIN_TREES_KEPT = 64;

/**
 * Memories pages, search pages and mustRead lists kept at one committed
 * version: this many of each kind, and their texts' bytes together at most
 * READS_KEPT_BYTES (a page of long notes weighs what its texts do).
 */
const READS_KEPT = 256;
const READS_KEPT_BYTES = 8 * 1024 * 1024;

/** About what a memory's texts take in memory (two bytes a character), with its other fields. */
function weightOf(memories: readonly MemoryEntity[]): number {
  let weight = 0;
  for (const memory of memories) weight += 256 + 2 * (memory.title.length + memory.body.length + memory.goal.length + (memory.domain?.length ?? 0));
  return weight;
}

/**
 * A kept answer is shared by every request that reads it at its version:
 * frozen, so a caller that tried to change it would fail at once instead of
 * changing what the next request reads.
 */
function frozen<T extends MemoryEntity[] | Page<MemoryEntity>>(answer: T): T {
  const nodes = Array.isArray(answer) ? answer : answer.nodes;
  for (const node of nodes) Object.freeze(node);
  Object.freeze(nodes);
  if (!Array.isArray(answer)) {
    // A page's cursors are a plain array once copied (search's page) and made on first use otherwise.
    const cursors = Object.getOwnPropertyDescriptor(answer, 'cursors')?.value as string[] | undefined;
    if (cursors) Object.freeze(cursors);
    Object.freeze(answer);
  }
  return answer;
}

function keptPages(enabled: boolean): CommittedCache<Page<MemoryEntity>> {
  return new CommittedCache({ enabled, keys: READS_KEPT, weigh: (page) => weightOf(page.nodes), weight: READS_KEPT_BYTES });
}

export { DOMAINS_LISTED_MAX, type DomainCounts } from './domain-counts.js';

/** What a memories page reads: the scope's domains that hold a match, below the cursor, with its filters. */
interface PageRead {
  domains: readonly string[];
  after: number | null;
  kind: MemoryKind | null;
  status: MemoryStatus | null;
  limit: number;
}

/** The page's filters on the row `alias`, each value bound in the order it appears. */
function pageFilter(page: PageRead, bind: (value: unknown) => string): (alias: string) => string {
  return (alias) => {
    let condition = '';
    if (page.after !== null) condition += ` AND ${alias}."id" < ${bind(page.after)}`;
    if (page.kind) condition += ` AND ${alias}."kind" = ${bind(page.kind)}`;
    if (page.status) condition += ` AND ${page.status === 'ACTIVE' ? IS_ACTIVE : `NOT ${IS_ACTIVE}`}`.replaceAll('m."', `${alias}."`);
    return condition;
  };
}

/**
 * The EACH_DOMAIN plan (domain/memories-page-plan.ts): the newest `limit`
 * ids below `after` of each domain that holds a match, each a short walk back
 * through the (domain, id) index, merged newest first; then only the page's
 * rows are read. What it reads grows with the page and the domains, never
 * with the memories of the scope. One text whatever the number of domains
 * (their paths are one parameter: a JSON array read by json_each on SQLite, a
 * text[] unnested on PostgreSQL), so it is prepared once. SQLite has no
 * LATERAL: a domain's walk is bounded below by its `limit`-th newest match (a
 * correlated OFFSET), so the join reads no more than that many rows of each
 * domain. A domain scope never holds a session's plan (a plan has no domain),
 * so no sessionId test is needed.
 */
function newestOfEachDomain(postgres: boolean, page: PageRead): { sql: string; values: unknown[] } {
  const values: unknown[] = [];
  const bind = (value: unknown) => (values.push(value), '?');
  const narrow = pageFilter(page, bind);
  let ids: string;
  if (postgres) {
    ids = `SELECT n."id" FROM unnest(CAST(${bind([...page.domains])} AS text[])) j("domain") CROSS JOIN LATERAL (SELECT d."id" FROM "memories" d ` +
      `WHERE d."domain" = j."domain"${narrow('d')} ORDER BY d."id" DESC LIMIT ${page.limit}) n ORDER BY n."id" DESC LIMIT ${page.limit}`;
  } else {
    const domains = bind(JSON.stringify(page.domains));
    const bound = `(SELECT x."id" FROM "memories" x WHERE x."domain" = j."value"${narrow('x')} ORDER BY x."id" DESC LIMIT 1 OFFSET ${page.limit - 1})`;
    ids = `SELECT d."id" FROM json_each(${domains}) j JOIN "memories" d ON d."domain" = j."value" AND d."id" >= coalesce(${bound}, 0)${narrow('d')}`;
  }
  return { sql: `SELECT ${memoryColumns('o')} FROM "memories" o WHERE o."id" IN (${ids}) ORDER BY o."id" DESC LIMIT ${page.limit}`, values };
}

/**
 * The ID_ORDER plan: one walk of "memories" back from `after` (past the
 * newest id on a first page) in primary key order, keeping the rows of the
 * scope's domains that pass the filters, until the page is full. The domains
 * are one parameter, as in newestOfEachDomain; on SQLite the `+` keeps the
 * planner on the primary key (the (domain, id) index would read and sort
 * every match of the scope).
 */
function newestInIdOrder(postgres: boolean, page: PageRead & { newestId: number }): { sql: string; values: unknown[] } {
  const values: unknown[] = [];
  const bind = (value: unknown) => (values.push(value), '?');
  const below = `m."id" < ${bind(page.after ?? page.newestId + 1)}`;
  const inDomains = postgres
    ? `m."domain" = ANY(CAST(${bind([...page.domains])} AS text[]))`
    : `+m."domain" IN (SELECT j."value" FROM json_each(${bind(JSON.stringify(page.domains))}) j)`;
  const narrow = pageFilter({ ...page, after: null }, bind);
  return { sql: `SELECT ${memoryColumns('m')} FROM "memories" m WHERE ${below} AND ${inDomains}${narrow('m')} ORDER BY m."id" DESC LIMIT ${page.limit}`, values };
}

/**
 * A page of the scope's memories most recently changed first, below the
 * cursor's (updatedAt, id). The (domain, updatedAt, id) index walks one
 * domain in this order and stops at the page; a scope of several domains is
 * each domain's walk merged, so what a page reads grows with the page and
 * the scope's domains, not with their memories. The scope is `domains`,
 * the ones that hold a match, as in newestOfEachDomain.
 */
const SQLITE_WALKS_MAX = 64;

function recentlyUpdated(postgres: boolean, page: Omit<PageRead, 'after'> & { after: readonly [string, number] | null }): { sql: string; values: unknown[] } {
  const values: unknown[] = [];
  const bind = (value: unknown) => (values.push(value), '?');
  const narrow = (alias: string) => {
    let condition = pageFilter({ ...page, after: null }, bind)(alias);
    if (page.after) {
      const [stamp, id] = page.after;
      condition += ` AND (${alias}."updatedAt" < ${bind(stamp)} OR (${alias}."updatedAt" = ${bind(stamp)} AND ${alias}."id" < ${bind(id)}))`;
    }
    return condition;
  };
  const order = (alias: string) => `ORDER BY ${alias}."updatedAt" DESC, ${alias}."id" DESC LIMIT ${page.limit}`;
  let ids: string;
  if (page.domains.length === 1) {
    ids = `SELECT d."id" FROM "memories" d WHERE d."domain" = ${bind(page.domains[0])}${narrow('d')} ${order('d')}`;
  } else if (postgres) {
    ids = `SELECT n."id" FROM unnest(CAST(${bind([...page.domains])} AS text[])) j("domain") CROSS JOIN LATERAL (SELECT d."id", d."updatedAt" FROM "memories" d ` +
      `WHERE d."domain" = j."domain"${narrow('d')} ${order('d')}) n ${order('n')}`;
  } else if (page.domains.length > SQLITE_WALKS_MAX) {
    // One statement text per scope size would not be prepared once: past this many domains, one sort of the scope's matches.
    ids = `SELECT d."id" FROM "memories" d WHERE d."domain" IN (SELECT j."value" FROM json_each(${bind(JSON.stringify(page.domains))}) j)${narrow('d')} ${order('d')}`;
  } else {
    // SQLite has no LATERAL: a UNION of one bounded walk per domain, each its own index range.
    ids = page.domains.map((domain, index) =>
      `SELECT "id" FROM (SELECT d."id" FROM "memories" d WHERE d."domain" = ${bind(domain)}${narrow('d')} ${order('d')}) "walk${index}"`).join(' UNION ALL ');
  }
  return { sql: `SELECT ${memoryColumns('o')} FROM "memories" o WHERE o."id" IN (${ids}) ${order('o')}`, values };
}

/** Reads over memories (notes and tasks): by domain, open tasks, domain counts, search; keyset-paged. */
export class MemoryReader {
  /** domains() answers by scope ('' for all), kept while nothing commits. */
  private readonly domainTrees: CommittedCache<readonly DomainCounts[]>;
  /** Memories pages, search pages and mustRead lists, kept while nothing commits (shared: frozen). */
  private readonly memoriesPages: CommittedCache<Page<MemoryEntity>>;
  private readonly searchPages: CommittedCache<Page<MemoryEntity>>;
  private readonly mustReads: CommittedCache<MemoryEntity[]>;

  /** `keep`: keep these reads until anything commits (TASKBASE_KEEP_READS). */
  constructor(
    private readonly reader: () => EntityManager,
    private readonly searchIndex: SearchIndex,
    keep = true,
  ) {
    this.domainTrees = new CommittedCache({ enabled: keep, keys: DOMAIN_TREES_KEPT });
    this.memoriesPages = keptPages(keep);
    this.searchPages = keptPages(keep);
    this.mustReads = new CommittedCache<MemoryEntity[]>({ enabled: keep, keys: READS_KEPT, weigh: weightOf, weight: READS_KEPT_BYTES });
  }

  /**
   * (Each kept read takes `committed`, the version its request read already
   * before any of its rows, when it has: see CommittedCache.get.)
   *
   * Memories of a scope, newest first. The total is the kept counts' sum
   * over the scope's domains; those counts also choose how the page is read
   * (domain/memories-page-plan.ts): in id order when the scope holds a large
   * share of the table or many domains, else by a walk of each domain merged.
   * Either way what the page costs grows with the page, never with the
   * memories in the scope. Kept until anything commits: one statement (the
   * committed version) for a page read again meanwhile, three otherwise.
   */
  async memories(
    args: { domain: string; kind?: MemoryKind | null; status?: MemoryStatus | null; first?: number | null; after?: string | null; order?: MemoryOrder | null },
    committed: string | null = null,
  ): Promise<Page<MemoryEntity>> {
    const scope = cleanDomain(args.domain);
    const size = pageSize(args.first);
    const order = args.order ?? 'NEWEST';
    const key = decodeCursor(args.after, order === 'NEWEST' ? ROW_CURSOR : UPDATED_CURSOR);
    const kind = args.kind ?? null;
    const status = args.status ?? null;
    const reader = this.reader();
    const kept = JSON.stringify([scope, size, key, kind, status, order]);
    return this.memoriesPages.get(reader, kept, async () => frozen(await this.readMemoriesPage(reader, scope, size, key, kind, status, order)), { known: committed });
  }

  private async readMemoriesPage(
    reader: EntityManager,
    scope: string,
    size: number,
    key: readonly (string | number)[] | null,
    kind: MemoryKind | null,
    status: MemoryStatus | null,
    order: MemoryOrder = 'NEWEST',
  ): Promise<Page<MemoryEntity>> {
    const counts = await ownCountsIn(reader, scope);
    const holding = counts.domains.map((own) => ({ own, matching: matchingCount(own, kind, status) })).filter((domain) => domain.matching > 0);
    const total = holding.reduce((sum, domain) => sum + domain.matching, 0);
    if (holding.length === 0) return pageFrom([], size, (row: MemoryEntity) => [row.id], total);
    const postgres = reader.connection.driver.options.type === 'postgres';
    if (order === 'RECENTLY_UPDATED') {
      const after = key ? ([String(key[0]), Number(key[1])] as const) : null;
      const { sql, values } = recentlyUpdated(postgres, { domains: holding.map(({ own }) => own.domain), after, kind, status, limit: size + 1 });
      const rows = (await selectRows(reader, sql, values)).map((row) => memoryOf(row));
      return pageFrom(rows, size, (row) => [row.updatedAt, row.id], total);
    }
    const page: PageRead = { domains: holding.map(({ own }) => own.domain), after: key ? Number(key[0]) : null, kind, status, limit: size + 1 };
    const plan = memoriesPagePlan(page.limit, counts.idSpan, holding.map(({ own, matching }) => ({ memories: own.tasks + own.notes, matching })));
    const { sql, values } = plan === 'ID_ORDER' ? newestInIdOrder(postgres, { ...page, newestId: counts.idSpan }) : newestOfEachDomain(postgres, page);
    const rows = (await selectRows(reader, sql, values)).map((row) => memoryOf(row));
    return pageFrom(rows, size, (row) => [row.id], total);
  }

  /** Open tasks of a scope, most recently updated first (the 200 most recent); kept until anything commits. */
  async mustRead(domain: string, committed: string | null = null): Promise<MemoryEntity[]> {
    const scope = cleanDomain(domain);
    const reader = this.reader();
    return this.mustReads.get(reader, scope, async () => frozen(await openTasksIn(reader, [scope], MUST_READ_MAX)), { known: committed });
  }

  /**
   * Domains at and below `under` (all when null) that hold memories, each
   * with counts over itself and everything below it (domain-counts.ts).
   * The tree is summed again only after something commits: one statement
   * (the committed version) while nothing has, two after. Shared between
   * requests: not to be changed by the caller.
   */
  async domains(under: string | null | undefined, committed: string | null = null): Promise<readonly DomainCounts[]> {
    const scope = under === null || under === undefined ? null : cleanDomain(under);
    const reader = this.reader();
    return this.domainTrees.get(reader, scope ?? '', () => domainCounts(reader, scope), { known: committed });
  }

  /** Full-text search, best match first; the cursor is the last hit's (rank, id). Kept until anything commits. */
  async search(
    args: { query: string; domain?: string | null; kind?: MemoryKind | null; first?: number | null; after?: string | null },
    committed: string | null = null,
  ): Promise<Page<MemoryEntity>> {
    const words = searchWords(args.query);
    const size = pageSize(args.first);
    const key = decodeCursor(args.after, SEARCH_CURSOR);
    const domain = args.domain === null || args.domain === undefined ? null : cleanDomain(args.domain);
    if (words.length === 0) return pageFrom([], size, () => [], 0);
    const kind = args.kind ?? null;
    const after: [number, number] | null = key ? [Number(key[0]), Number(key[1])] : null;
    const reader = this.reader();
    const kept = JSON.stringify([words, domain, kind, after, size]);
    return this.searchPages.get(reader, kept, async () => frozen(await this.readSearchPage(reader, { words, domain, kind, after, size })), { known: committed });
  }

  private async readSearchPage(
    reader: EntityManager,
    { words, domain, kind, after, size }: { words: string[]; domain: string | null; kind: MemoryKind | null; after: [number, number] | null; size: number },
  ): Promise<Page<MemoryEntity>> {
    const { hits, total } = await this.searchIndex.search(reader, { words, domain, kind, after, limit: size + 1 });
    const rows = await memoriesWithIds(reader, hits.map((hit) => hit.memoryId));
    const byId = new Map(rows.map((row) => [row.id, row]));
    const ranked = hits.filter((hit) => byId.has(hit.memoryId));
    const page = pageFrom(ranked, size, (hit) => [hit.rank, hit.memoryId], total);
    return { ...page, nodes: page.nodes.map((hit) => byId.get(hit.memoryId)!) } as Page<MemoryEntity>;
  }
}
