import type { EntityManager } from 'typeorm';
import { inScope } from '../../domain/domains.js';
import type { MemoryStatus } from '../../domain/states.js';
import { selectRows } from '../kernel/statements.js';
import { scopeCondition } from '../kernel/domain-scope.js';
import type { MemoryKind } from '../../domain/memory-kind.js';

/** Query.domains lists this many paths at most (the first in path order); narrow with `under` for the rest. */
export const DOMAINS_LISTED_MAX = 1000;

/** A domain path with counts over itself and everything below it. */
export interface DomainCounts {
  path: string;
  openTasks: number;
  tasks: number;
  notes: number;
  /** The latest change of a memory here or below: what "recent activity" sorts by. */
  lastActivityAt: string;
  /** When the first memory here or below was made. */
  createdAt: string;
}

/** One domain's kept counts of its own memories (db/migrations/1764570000000-domain-counts.ts keeps them). */
export interface OwnCounts {
  domain: string;
  tasks: number;
  openTasks: number;
  notes: number;
  activeNotes: number;
  lastActivityAt: string;
  createdAt: string;
}

/** The kept counts of a scope's domains, and the largest memory id (the span an id-order walk of the table covers). */
export interface ScopeCounts {
  domains: OwnCounts[];
  idSpan: number;
}

/**
 * The kept counts of every domain in `scope` and below (all when null) that
 * holds memories: its rows (one per domain, or a few shards) summed, read
 * through the table's key, never a count of the memories themselves. In path order. Each row also carries
 * the largest memory id (one step down the primary key), which a memories
 * page weighs its plans by (domain/memories-page-plan.ts); empty when no
 * domain holds memories. Prepared once (a memories page and domains() start
 * with it).
 */
export async function ownCountsIn(manager: EntityManager, scope: string | null): Promise<ScopeCounts> {
  const values: string[] = [];
  const inRange = scope === null ? '' : ` WHERE ${scopeCondition('"domain"', scope, (value) => (values.push(value), '?'))}`;
  // A domain's counts may be kept over several rows (PostgreSQL's shards: db/migrations/1766000001000-domain-count-shards.ts): summed here.
  const rows = await selectRows(
    manager,
    `SELECT "domain", SUM("tasks"), SUM("openTasks"), SUM("notes"), SUM("activeNotes"), MAX("lastActivityAt"), COALESCE(MIN(NULLIF("createdAt", '')), ''), ` +
      `(SELECT MAX(s."id") FROM "memories" s) FROM "domain_counts"${inRange} ` +
      `GROUP BY "domain" HAVING SUM("tasks") > 0 OR SUM("notes") > 0 ORDER BY "domain"`,
    values,
  );
  const domains = rows.map(([domain, tasks, openTasks, notes, activeNotes, lastActivityAt, createdAt]) => ({
    domain: String(domain), tasks: Number(tasks), openTasks: Number(openTasks), notes: Number(notes), activeNotes: Number(activeNotes),
    lastActivityAt: String(lastActivityAt), createdAt: String(createdAt),
  }));
  return { domains, idSpan: rows.length === 0 ? 0 : Number(rows[0][7]) };
}

/** Every ancestor path of a domain, itself included: a/b/c → a, a/b, a/b/c. */
function pathsOf(domain: string): string[] {
  const segments = domain.split('/');
  return segments.map((_, index) => segments.slice(0, index + 1).join('/'));
}

/**
 * Domains at and below `under` (all when null) that hold memories, each
 * with counts over itself and everything below it, in path order, at most
 * DOMAINS_LISTED_MAX. A path that holds memories only below it (acme, above
 * acme/checkout) is listed too, so the result reads as a tree. Read from
 * the kept counts: one short statement whatever the number of memories.
 */
export async function domainCounts(manager: EntityManager, under: string | null): Promise<DomainCounts[]> {
  const totals = new Map<string, DomainCounts>();
  for (const own of (await ownCountsIn(manager, under)).domains) {
    for (const path of pathsOf(own.domain)) {
      if (under !== null && !inScope(path, under)) continue;
      const counts = totals.get(path) ?? { path, openTasks: 0, tasks: 0, notes: 0, lastActivityAt: own.lastActivityAt, createdAt: own.createdAt };
      counts.tasks += own.tasks;
      counts.openTasks += own.openTasks;
      counts.notes += own.notes;
      if (own.lastActivityAt > counts.lastActivityAt) counts.lastActivityAt = own.lastActivityAt;
      if (own.createdAt < counts.createdAt) counts.createdAt = own.createdAt;
      totals.set(path, counts);
    }
  }
  return [...totals.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)).slice(0, DOMAINS_LISTED_MAX);
}

/**
 * How many of a domain's own memories a memories page's filter holds: a
 * task is ACTIVE while open, a note while not archived (the lists' rule,
 * memory-reader.ts IS_ACTIVE).
 */
export function matchingCount(own: OwnCounts, kind: MemoryKind | null, status: MemoryStatus | null): number {
  const tasks = status === null ? own.tasks : status === 'ACTIVE' ? own.openTasks : own.tasks - own.openTasks;
  const notes = status === null ? own.notes : status === 'ACTIVE' ? own.activeNotes : own.notes - own.activeNotes;
  return kind === 'TASK' ? tasks : kind === 'NOTE' ? notes : tasks + notes;
}
