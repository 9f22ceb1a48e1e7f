import type { EntityManager } from 'typeorm';
import { decodeChangeCursor } from '../../../domain/change-cursor.js';
import { cleanDomain } from '../../../domain/domains.js';
import { ACTIVITY_ACTIONS, HISTORY_ACTIONS } from '../../../domain/history.js';
import { pageSize } from '../../../domain/paging.js';
import { scopeCondition } from '../domain-scope.js';
import { loggedChangeColumns, loggedChangeRowOf } from '../entity-rows.js';
import { distinct, json, num, placeholders, selectRows } from '../statements.js';
import { loggedChangeOf, type LoggedChange } from './logged-change.js';

/** What a session itself does (starts, finishes, rules), as against its plan's changes, which its task's rows say. */
const SESSION_ACTIVITY = ACTIVITY_ACTIONS.filter((action) => !(HISTORY_ACTIONS as readonly string[]).includes(action));

/** Which changes a reader of the activity stream asks for. */
export interface ActivityFilter {
  /** A domain and those under it. */
  domain?: string | null;
  /** Made by this session. */
  madeBy?: string | null;
  /** Made without a session (people on the dashboard, a CLI). */
  byPerson?: boolean | null;
}

export interface ActivityPage {
  nodes: LoggedChange[];
  hasNextPage: boolean;
  endCursor: string | null;
}

/** What one change did to items, as its task's history row recorded it (from → to). */
export interface RecordedItemChange {
  itemId: string;
  kind: string;
  text: string;
  from: string | null;
  to: string | null;
}

/**
 * The change log as people read it: newest first, keyset-paged back in time
 * by log id, filtered by domain and by who made the change, bookkeeping left
 * out (ACTIVITY_ACTIONS).
 */
export class ActivityReader {
  constructor(private readonly reader: () => EntityManager) {}

  async page(after: string | null | undefined, only: ActivityFilter, first: number | null | undefined): Promise<ActivityPage> {
    const size = pageSize(first);
    const before = decodeChangeCursor(after);
    const values: unknown[] = [...ACTIVITY_ACTIONS, ...SESSION_ACTIVITY];
    // A session's own row for its plan's change repeats the task's (same action): only the task's is read.
    let where = `c."action" IN (${placeholders(ACTIVITY_ACTIONS.length)}) AND (c."entity" <> 'SESSION' OR c."action" IN (${placeholders(SESSION_ACTIVITY.length)}))`;
    if (before !== null) {
      where += ' AND c."id" < ?';
      values.push(before);
    }
    if (only.domain !== null && only.domain !== undefined) where += ` AND ${scopeCondition('c."domain"', cleanDomain(only.domain), (value) => (values.push(value), '?'))}`;
    if (only.madeBy) {
      where += ' AND c."madeBy" = ?';
      values.push(only.madeBy);
    }
    if (only.byPerson) where += ' AND c."madeBy" IS NULL';
    values.push(size + 1);
    const rows = await selectRows(this.reader(), `SELECT ${loggedChangeColumns('c')} FROM "changes" c WHERE ${where} ORDER BY c."id" DESC LIMIT ?`, values);
    const nodes = rows.slice(0, size).map((row) => loggedChangeOf(loggedChangeRowOf(row)));
    return { nodes, hasNextPage: rows.length > size, endCursor: nodes.at(-1)?.id ?? after ?? null };
  }

  /**
   * For each logged change, what its task's history row recorded about its
   * items (from → to): the row its write made, found by task, time and action
   * (both are written with the unit of work's time); for a change of one
   * item, only that item's. Empty for a change with no history row.
   */
  async itemChanges(changes: readonly LoggedChange[]): Promise<RecordedItemChange[][]> {
    const tasks = distinct(changes.flatMap((change) => (change.taskId === null ? [] : [Number(change.taskId)])));
    const times = distinct(changes.map((change) => change.at));
    if (tasks.length === 0) return changes.map(() => []);
    const rows = await selectRows(this.reader(),
      `SELECT e."taskId", e."at", e."action", e."changes" FROM "task_events" e WHERE e."taskId" IN (${placeholders(tasks.length)}) AND e."at" IN (${placeholders(times.length)}) ORDER BY e."id"`,
      [...tasks, ...times]);
    const recorded = new Map<string, RecordedItemChange[]>();
    for (const [taskId, at, action, recordedJson] of rows) {
      const key = `${num(taskId)}|${at}|${action}`;
      recorded.set(key, [...(recorded.get(key) ?? []), ...json<RecordedItemChange[]>(recordedJson)]);
    }
    return changes.map((change) => {
      const all = recorded.get(`${change.taskId}|${change.at}|${change.action}`) ?? [];
      return change.itemId === null ? all : all.filter((item) => String(item.itemId) === change.itemId);
    });
  }
}
