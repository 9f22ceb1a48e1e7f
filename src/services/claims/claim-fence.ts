import { fenceItemChange, type FenceVerdict } from '../../domain/claims.js';
import { kindOf } from '../../db/db-clock.js';
import type { ItemEntity } from '../../db/entities/index.js';
import { runStatement, type Statement } from '../kernel/statements.js';
import type { UnitOfWork } from '../kernel/unit-of-work.js';
import type { TaskAggregate } from '../task-aggregate/task-store.js';
import { claimRowForFence, endClaimsOnItems, recordClaim } from './claim-store.js';

/**
 * Claims fence: the one check every state or text change of an item passes
 * (the rule is domain/claims.ts fenceItemChange). Call it in the write's
 * transaction once the item's row lock is held (its load took it, or the
 * row is written). On PostgreSQL a claimNext that took the item first has
 * then committed and is read here, and one that comes after skips the
 * locked row; the claim is
 * compared with the database's clock as the statement runs, at the end of
 * the write. A forced change is recorded as CLAIM_OVERRIDDEN (the change
 * names whose claim, the event's session who forced it), in the task's
 * history and the change log, before the change itself.
 */
export async function checkClaimFence(
  uow: UnitOfWork, aggregate: TaskAggregate, item: ItemEntity, force: boolean,
  {
    settling = false,
    written = null,
  }: {
    /** The change settles the item: its claim ends with it, read and ended in one statement where it can be (claimRowForFence). */
    settling?: boolean;
    /**
     * The item row's write, not sent yet: sent first, or on PostgreSQL in the fence's own statement (a round trip
     * fewer). Only when the item's row lock is held already (loadItemForChange takes it), so that statement's reads
     * come after the lock as the fence needs; otherwise write the row before calling.
     */
    written?: Statement | null;
  } = {},
): Promise<FenceVerdict> {
  const pass = { lapsed: false, overrode: null };
  const caller = await uow.knownSessionId();
  // A person, or a plan's step (never claimed): nothing to read.
  const unread = !caller || aggregate.task.sessionId;
  // Only PostgreSQL sends the row's write within the read (SQLite has no writes in common table expressions).
  if (written && (unread || kindOf(uow.manager) !== 'postgres')) {
    await runStatement(uow.manager, written.sql, written.parameters);
    written = null;
  }
  if (unread) {
    if (settling) await endClaimsOnItems(uow.manager, [item.id], { leavingReady: true });
    return pass;
  }
  const { claim, now } = await claimRowForFence(uow.manager, item.id, { end: settling, written });
  if (!claim || !now) return pass;
  const verdict = fenceItemChange(String(item.id), caller, claim, now, force);
  if (verdict.overrode) {
    await recordClaim(uow, aggregate.task, aggregate.items, 'CLAIM_OVERRIDDEN', {
      itemId: String(item.id), kind: 'OVERRIDDEN', text: item.text, from: verdict.overrode, to: null,
    }, aggregate);
  }
  return verdict;
}
