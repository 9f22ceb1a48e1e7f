import type { EntityManager } from 'typeorm';
import type { DatabaseKind } from '../../../db/data-source.js';
import { decodeChangeCursor, encodeChangeCursor } from '../../../domain/change-cursor.js';
import { cleanDomain } from '../../../domain/domains.js';
import { DomainError } from '../../../domain/errors.js';
import { pageSize } from '../../../domain/paging.js';
import { scopeCondition } from '../domain-scope.js';
import { loggedChangeColumns, loggedChangeRowOf } from '../entity-rows.js';
import { num, selectRows } from '../statements.js';
import { sequenceChanges } from './change-log.js';
import { loggedChangeOf, type LoggedChange } from './logged-change.js';

interface ChangePage {
  nodes: LoggedChange[];
  hasNextPage: boolean;
  /** The last change's id; on an empty page the cursor asked from, so a client can always keep endCursor. */
  endCursor: string | null;
}

/**
 * The public change feed: the change log paged in commit order, by log id.
 * Ids become visible in the order they were given (on PostgreSQL they are
 * given as committed changes are moved from the queue into the log, one
 * move at a time: kernel/changes/change-log.ts), so a page never moves past one
 * still to appear.
 */
export class ChangeFeedReader {
  constructor(
    private readonly reader: () => EntityManager,
    private readonly kind: DatabaseKind,
  ) {}

  async page(after: string | null | undefined, domain: string | null | undefined, first: number | null | undefined): Promise<ChangePage> {
    const size = pageSize(first);
    const from = decodeChangeCursor(after);
    const scope = domain === null || domain === undefined ? null : cleanDomain(domain);
    const manager = this.reader();
    const values: unknown[] = [from ?? 0];
    const inScope = scope ? ` AND ${scopeCondition('c."domain"', scope, (value) => (values.push(value), '?'))}` : '';
    values.push(size + 1);
    // What committed is moved into the log first (PostgreSQL's queue), so a caller finds the changes it was answered for.
    await sequenceChanges(manager);
    const rows = (await selectRows(manager, `SELECT ${loggedChangeColumns('c')} FROM "changes" c WHERE c."id" > ?${inScope} ORDER BY c."id" ASC LIMIT ?`, values))
      .map((row) => loggedChangeRowOf(row));
    // Checked after the page is read: a prune that took a change after the cursor, before or during the read, shows here.
    if (from !== null && from > 0) await this.refuseIfPruned(manager, from);
    // Only an empty page can come from a cursor ahead of the log (any row after it means the log has passed it).
    if (rows.length === 0 && from !== null && from > 0) await this.refuseIfAhead(manager, from);
    const nodes = rows.slice(0, size).map(loggedChangeOf);
    return { nodes, hasNextPage: rows.length > size, endCursor: nodes.at(-1)?.id ?? after ?? null };
  }

  /**
   * A cursor is stale once a change after it has been pruned: the oldest id
   * kept is then beyond the one right after the cursor (or, with the log
   * emptied by age, the newest id ever given is). An id never given (a
   * transaction that failed after its insert) reads the same, so a client
   * may be told to resync when it did not strictly have to; it is never
   * answered a page with a hole in it.
   */
  private async refuseIfPruned(manager: EntityManager, from: number): Promise<void> {
    const [[oldest]] = await selectRows(manager, `SELECT MIN("id") FROM "changes"`, []);
    const limit = oldest === null || oldest === undefined ? (await this.lastGiven(manager)) + 1 : num(oldest);
    if (limit > from + 1) {
      throw new DomainError(
        'BAD_USER_INPUT',
        'after names a change older than the change log keeps (TASKBASE_CHANGE_LOG_DAYS and TASKBASE_CHANGE_LOG_ROWS): changes after it were pruned. ' +
          'Resync: read changes without after to its end and keep pageInfo.endCursor, re-read what you mirror, then resume from that cursor.',
        { field: 'after' },
      );
    }
  }

  /**
   * A cursor past the newest id the log has ever given was not read from this
   * log (another server's database, a log rebuilt from a restore, or a hand-made
   * one): kept, it would skip every change until the log caught up with it.
   * An id given to a transaction still in flight is not past it, so a client
   * at the very end is never refused.
   */
  private async refuseIfAhead(manager: EntityManager, from: number): Promise<void> {
    const newest = await this.lastGiven(manager);
    if (from <= newest) return;
    throw new DomainError(
      'BAD_USER_INPUT',
      `after names a change this log has not reached: the newest change given is ${encodeChangeCursor(newest)}. ` +
        'A cursor from another server\'s log, or from a database restored from an older copy? Resync: read changes without after to its end and keep pageInfo.endCursor, ' +
        're-read what you mirror, then resume from that cursor.',
      { field: 'after', newest: encodeChangeCursor(newest) },
    );
  }

  /** The newest id the log has ever given (0 before the first). */
  private async lastGiven(manager: EntityManager): Promise<number> {
    const rows = (this.kind === 'postgres'
      ? await manager.query(`SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS "id" FROM "changes_id_seq"`)
      : await manager.query(`SELECT "seq" AS "id" FROM "sqlite_sequence" WHERE "name" = 'changes'`)) as { id: number | string }[];
    return rows[0] ? Number(rows[0].id) : 0;
  }
}

