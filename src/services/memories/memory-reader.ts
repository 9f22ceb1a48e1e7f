import { type EntityManager, type SelectQueryBuilder } from 'typeorm';
import { cleanDomain, inScope } from '../../domain/domains.js';
import { searchWords } from '../../domain/search-words.js';
import { SEARCH_CURSOR, decodeCursor, pageFrom, pageSize, type Page } from '../../domain/paging.js';
import { plainRows } from '../kernel/plain-rows.js';
import { keysetPage } from '../kernel/keyset-page.js';
import type { MemoryStatus } from '../../domain/states.js';
import { MemoryEntity } from '../../db/entities/index.js';
import type { MemoryKind } from '../../domain/memory-kind.js';
import type { SearchIndex } from '../search/search-index.js';
import { scopeCondition } from '../kernel/domain-scope.js';

/**
 * A task is ACTIVE while OPEN: the state its row keeps, derived from its
 * counts of live items by the domain's rule (db/task-counts.ts), so lists
 * filter and count on it without reading items. (NOT "archived" reads the
 * same on SQLite's 0/1 and PostgreSQL's booleans.)
 */
const TASK_IS_OPEN = `m."taskState" = 'OPEN'`;

const IS_ACTIVE = `(CASE WHEN m."kind" = 'NOTE' THEN NOT m."archived" ELSE ${TASK_IS_OPEN} END)`;

/** Named parameters for scope conditions: `bind` gives each value a name of its own in `params`. */
function scopeParameters(): { params: Record<string, string>; bind: (value: string) => string } {
  const params: Record<string, string> = {};
  const bind = (value: string) => {
    const name = `scope${Object.keys(params).length}`;
    params[name] = value;
    return `:${name}`;
  };
  return { params, bind };
}

/** Memories in `domain` and below ("acme/checkout" covers "acme/checkout/billing", not "acme/checkoutx"): an index range of the domain column. */
function inDomain(query: SelectQueryBuilder<MemoryEntity>, domain: string): void {
  const { params, bind } = scopeParameters();
  query.andWhere(scopeCondition('m."domain"', domain, bind), params);
}

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
  const { params, bind } = scopeParameters();
  const newestIn = (domain: string, index: number) =>
    `SELECT "id" FROM (SELECT m."id" FROM "memories" m WHERE ${TASK_IS_OPEN} AND ${scopeCondition('m."domain"', domain, bind)} ` +
    `ORDER BY m."updatedAt" DESC, m."id" DESC LIMIT ${limit}) "newest${index}"`;
  const ids = domains.map(newestIn).join(' UNION ALL ');
  return plainRows(manager, manager.createQueryBuilder(MemoryEntity, 'o')
    .where(`o."id" IN (${ids})`, params)
    .orderBy('o."updatedAt"', 'DESC')
    .addOrderBy('o."id"', 'DESC')
    .limit(limit));
}

/** The memories with these ids (any order; unknown ids left out), read as plain rows. */
export function memoriesWithIds(manager: EntityManager, ids: readonly number[]): Promise<MemoryEntity[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return plainRows(manager, manager.createQueryBuilder(MemoryEntity, 'm').where('m."id" IN (:...ids)', { ids: [...new Set(ids)] }));
}

/** mustRead lists the most recently updated open tasks, this many at most. */
export const MUST_READ_MAX = 200;

/** Query.domains lists this many paths at most (the first in path order); narrow with `under` for the rest. */
export const DOMAINS_LISTED_MAX = 1000;

interface DomainCounts {
  path: string;
  openTasks: number;
  tasks: number;
  notes: number;
}

/** Every ancestor path of a domain, itself included: a/b/c → a, a/b, a/b/c. */
function pathsOf(domain: string): string[] {
  const segments = domain.split('/');
  return segments.map((_, index) => segments.slice(0, index + 1).join('/'));
}

/** Reads over memories (notes and tasks): by domain, open tasks, domain counts, search; keyset-paged. */
export class MemoryReader {
  constructor(
    private readonly reader: () => EntityManager,
    private readonly searchIndex: SearchIndex,
  ) {}

  private memories_(): SelectQueryBuilder<MemoryEntity> {
    // A session's plan is the session's, not the knowledge base's: no listing or search shows it.
    return this.reader().createQueryBuilder(MemoryEntity, 'm').where('m."sessionId" IS NULL');
  }

  /** Memories of a scope, newest first. */
  async memories(args: { domain: string; kind?: MemoryKind | null; status?: MemoryStatus | null; first?: number | null; after?: string | null }): Promise<Page<MemoryEntity>> {
    // A domain scope never holds a session's plan (a plan has no domain), so no sessionId test is needed:
    // counting the scope reads the (domain, id) index alone instead of every row in it.
    const query = this.reader().createQueryBuilder(MemoryEntity, 'm');
    inDomain(query, cleanDomain(args.domain));
    if (args.kind) query.andWhere('m."kind" = :kind', { kind: args.kind });
    if (args.status) query.andWhere(args.status === 'ACTIVE' ? IS_ACTIVE : `NOT ${IS_ACTIVE}`);
    return keysetPage(query, 'm."id"', 'DESC', args.first, args.after, (page) => plainRows(this.reader(), page));
  }

  /** Open tasks of a scope, most recently updated first (the 200 most recent). */
  async mustRead(domain: string): Promise<MemoryEntity[]> {
    return openTasksIn(this.reader(), [cleanDomain(domain)], MUST_READ_MAX);
  }

  /**
   * Domains at and below `under` (all when null) that hold memories, each
   * with counts over itself and everything below it. A path that holds
   * memories only below it (acme, above acme/checkout) is listed too, so the
   * result reads as a tree.
   */
  async domains(under: string | null | undefined): Promise<DomainCounts[]> {
    const scope = under === null || under === undefined ? null : cleanDomain(under);
    const query = this.memories_()
      .select('m."domain"', 'domain')
      .addSelect(`SUM(CASE WHEN m."kind" = 'TASK' THEN 1 ELSE 0 END)`, 'tasks')
      .addSelect(`SUM(CASE WHEN m."kind" = 'TASK' AND ${TASK_IS_OPEN} THEN 1 ELSE 0 END)`, 'openTasks')
      .addSelect(`SUM(CASE WHEN m."kind" = 'NOTE' THEN 1 ELSE 0 END)`, 'notes')
      .andWhere('m."domain" IS NOT NULL')
      .groupBy('m."domain"');
    if (scope) inDomain(query, scope);
    const rows: { domain: string; tasks: string | number; openTasks: string | number; notes: string | number }[] = await query.getRawMany();
    const totals = new Map<string, DomainCounts>();
    for (const row of rows) {
      for (const path of pathsOf(row.domain)) {
        if (scope && !inScope(path, scope)) continue;
        const counts = totals.get(path) ?? { path, openTasks: 0, tasks: 0, notes: 0 };
        counts.tasks += Number(row.tasks);
        counts.openTasks += Number(row.openTasks);
        counts.notes += Number(row.notes);
        totals.set(path, counts);
      }
    }
    return [...totals.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)).slice(0, DOMAINS_LISTED_MAX);
  }

  /** Full-text search, best match first; the cursor is the last hit's (rank, id). */
  async search(args: { query: string; domain?: string | null; kind?: MemoryKind | null; first?: number | null; after?: string | null }): Promise<Page<MemoryEntity>> {
    const words = searchWords(args.query);
    const size = pageSize(args.first);
    const key = decodeCursor(args.after, SEARCH_CURSOR);
    const domain = args.domain === null || args.domain === undefined ? null : cleanDomain(args.domain);
    if (words.length === 0) return pageFrom([], size, () => [], 0);
    const { hits, total } = await this.searchIndex.search(this.reader(), {
      words, domain, kind: args.kind ?? null, after: key ? [Number(key[0]), Number(key[1])] : null, limit: size + 1,
    });
    const rows = await memoriesWithIds(this.reader(), hits.map((hit) => hit.memoryId));
    const byId = new Map(rows.map((row) => [row.id, row]));
    const ranked = hits.filter((hit) => byId.has(hit.memoryId));
    const page = pageFrom(ranked, size, (hit) => [hit.rank, hit.memoryId], total);
    return { ...page, nodes: page.nodes.map((hit) => byId.get(hit.memoryId)!) } as Page<MemoryEntity>;
  }
}
