import { claimedBy, claimNeedsSession, claimNextTakenOver, claimTtl, CLAIMS_PER_SESSION_MAX, CLAIMS_PER_TOKEN_MAX, isOpenWork, isSettled, notClaimable, notClaimed, tooManyClaims, tooManyClaimsForToken } from '../../domain/claims.js';
import { cleanDomain } from '../../domain/domains.js';
import { DomainError } from '../../domain/errors.js';
import type { ItemState } from '../../domain/states.js';
import { readDbNow } from '../../db/db-clock.js';
import { ClaimEntity, ItemEntity, MemoryEntity } from '../../db/entities/index.js';
import { createOnce } from '../kernel/idempotency.js';
import type { Caller, UnitOfWork, Writer } from '../kernel/unit-of-work.js';
import { loadItemForChange } from '../task-aggregate/task-store.js';
import { taskViewIn, taskViewOf, type ItemChanged, type TaskView } from '../task-aggregate/task-view.js';

/** What a finish asks of updateItem: the held item settled, with the agent's comment. */
interface ItemSettling { id: string; state: ItemState; comment: string | null }
import { claimReadyItem, endClaimsOnItems, liveClaimCount, liveClaimCountOfOwner, liveClaimsOf, recordClaim, setClaimExpiry, takeClaim } from './claim-store.js';

interface ClaimInput {
  id: string;
  ttlSeconds?: number | null;
}

/** An item and the claim on it after the call (null once released), with its task as the write read it: what an agent's tool shows, read nowhere else. */
export interface ClaimResult {
  item: ItemEntity;
  claim: ClaimEntity | null;
  view: TaskView;
}

/** The held item claimNext settles before it takes the next one: DONE (the default) or DROPPED, with an optional comment (its note). */
export interface FinishInput {
  id: string;
  state?: ItemState | null;
  comment?: string | null;
}

/** claimNext's answer: the item claimed (null when none is ready), and, with finish, the item it settled first. */
export interface ClaimNextResult {
  claimed: ClaimResult | null;
  finished: ItemChanged | null;
}

/**
 * How many times claimNext claims again after its claim was refused (a
 * candidate claimed by another session between the read of the queue and
 * the claim) before it answers that none is free.
 */
const CLAIM_NEXT_TRIES = 5;

/**
 * Claims: leases on items by agent sessions, timed by the database's clock.
 * Each call is one transaction; a claim taken or released is a history row
 * and a change-log event, a renewal a change-log event only.
 */
export class ClaimService {
  constructor(
    private readonly writer: Writer,
    /** For claimNext's finish: the item is settled by updateItem's own work, with every rule it keeps. */
    /** updateItem's own work inside this transaction (the tasks service's updateItemIn): how a finish settles the held item. */
    private readonly tasks: { updateItemIn(uow: UnitOfWork, input: ItemSettling): Promise<ItemChanged> },
  ) {}

  /** Claims an item for the calling session; the same session claiming again renews. CLAIMED while another's claim holds. */
  async claimItem(caller: Caller, input: ClaimInput): Promise<ClaimResult> {
    const ttl = claimTtl(input.ttlSeconds);
    return this.writer.run(caller, async (uow) => {
      const sessionId = await this.callingSession(uow, 'claimItem');
      const { aggregate, item } = await loadItemForChange(uow, input.id);
      if (aggregate.task.sessionId) throw notClaimable(String(item.id), 'PLAN');
      if (!isOpenWork(item.state)) throw notClaimable(String(item.id), item.state);
      const now = await readDbNow(uow.manager);
      const [held] = await liveClaimsOf(uow.manager, [item.id]);
      if (held && held.sessionId !== sessionId) throw claimedBy(String(item.id), held.sessionId, held.expiresAt, now);
      const view = taskViewOf(aggregate.task, aggregate.items);
      if (held) return { item, claim: await this.extend(uow, aggregate.task, held, ttl), view };
      await this.checkClaimCaps(uow, sessionId);
      const claim = { itemId: item.id, taskId: item.taskId, sessionId, owner: uow.caller.principal ?? null };
      const stamps = await takeClaim(uow.manager, claim, ttl);
      if (!stamps) {
        // Taken by another session between the read and the claim (PostgreSQL): name that holder.
        const [winner] = await liveClaimsOf(uow.manager, [item.id]);
        throw claimedBy(String(item.id), winner?.sessionId ?? 'another session', winner?.expiresAt ?? now, now);
      }
      await recordClaim(uow, aggregate.task, aggregate.items, 'ITEM_CLAIMED', { itemId: String(item.id), kind: 'CLAIMED', text: item.text, from: null, to: sessionId }, aggregate);
      return { item, claim: Object.assign(new ClaimEntity(), claim, stamps, { takenFrom: null }), view };
    });
  }

  /** Extends the calling session's live claim by its ttl from now; NOT_CLAIMED when it holds none. */
  async renewClaim(caller: Caller, input: ClaimInput): Promise<ClaimResult> {
    const ttl = claimTtl(input.ttlSeconds);
    return this.writer.run(caller, async (uow) => {
      const sessionId = await this.callingSession(uow, 'renewClaim');
      const { aggregate, item } = await loadItemForChange(uow, input.id);
      const [held] = await liveClaimsOf(uow.manager, [item.id]);
      if (!held || held.sessionId !== sessionId) {
        // Who holds it now, or that it is settled, says whether claiming it again could work: read the clock only to say so.
        const other = held ? { holder: held.sessionId, expiresAt: held.expiresAt, now: await readDbNow(uow.manager) } : null;
        throw notClaimed(String(item.id), sessionId, item.state, other);
      }
      return { item, claim: await this.extend(uow, aggregate.task, held, ttl), view: taskViewOf(aggregate.task, aggregate.items) };
    });
  }

  /**
   * Ends a claim: the calling session's own (CLAIMED when another session's
   * holds the item), or, for a caller without a session (a person with a
   * write token), whoever's it is. Releasing where no claim holds records
   * nothing, so a retried release answers like the first.
   */
  async releaseClaim(caller: Caller, id: string): Promise<ClaimResult> {
    return this.writer.run(caller, async (uow) => {
      const sessionId = await uow.knownSessionId();
      const { aggregate, item } = await loadItemForChange(uow, id);
      const [held] = await liveClaimsOf(uow.manager, [item.id]);
      const view = taskViewOf(aggregate.task, aggregate.items);
      if (!held) return { item, claim: null, view };
      if (sessionId && held.sessionId !== sessionId) throw claimedBy(String(item.id), held.sessionId, held.expiresAt, await readDbNow(uow.manager));
      await endClaimsOnItems(uow.manager, [item.id]);
      // The history row's session is who released it (none: a person); the change names whose claim it was.
      await recordClaim(uow, aggregate.task, aggregate.items, 'CLAIM_RELEASED', { itemId: String(item.id), kind: 'RELEASED', text: item.text, from: held.sessionId, to: null }, aggregate);
      return { item, claim: null, view };
    });
  }

  /**
   * Claims the first ready item of a domain (and those under it) for the
   * calling session; null when none is ready. Two callers never get the same
   * item: on PostgreSQL the candidate's row is locked FOR UPDATE SKIP LOCKED,
   * so a concurrent caller passes over it to the next, and the claim's own
   * statement refuses an item claimed since the read; on SQLite the write
   * lock runs one caller at a time.
   *
   * With an idempotencyKey, a retry by the same session (its outcome unknown:
   * a dropped connection, a database restart) answers the item the first call
   * claimed and records nothing, instead of claiming a second item and leaving
   * the first held by no one until its lease ends. A first call that found
   * nothing ready keeps no key, so its retry looks again.
   */
  async claimNext(caller: Caller, input: { domain: string; ttlSeconds?: number | null; idempotencyKey?: string | null }): Promise<ClaimResult | null> {
    return (await this.finishAndClaimNext(caller, input)).claimed;
  }

  /**
   * claimNext with `finish`: settles the caller's held item (as updateItem
   * would, with every rule it keeps: the claims fence, history, change log)
   * and claims the next ready item, in one transaction, so a worker's loop
   * is one call and one commit per item. A refused finish (CLAIMED: the
   * caller's claim was taken over) claims nothing either. The finished item
   * is settled even when nothing is ready to claim next. A retry with the
   * idempotencyKey answers the first call's claim and settles nothing again.
   */
  async finishAndClaimNext(
    caller: Caller,
    input: { domain: string; ttlSeconds?: number | null; idempotencyKey?: string | null; finish?: FinishInput | null },
    /**
     * The call as its caller sent it, when this is a later look of it (claim-waits.ts: the finish settled by the
     * first look is not sent again): the key is kept under what the caller sent, so its retry of the same call
     * answers this claim.
     */
    sent: typeof input = input,
  ): Promise<ClaimNextResult> {
    const ttl = claimTtl(input.ttlSeconds);
    const domain = cleanDomain(input.domain);
    const finish = input.finish ?? null;
    const state = finish?.state ?? 'DONE';
    if (finish && !isSettled(state)) {
      throw new DomainError('BAD_USER_INPUT', `finish settles the item you hold: its state is DONE or DROPPED (got ${state}). Change it to other states with updateItem.`, { field: 'finish.state' });
    }
    return this.writer.run(caller, async (uow) => {
      const sessionId = await this.callingSession(uow, 'claimNext');
      let finished: ItemChanged | null = null;
      // Without finish, the key's fingerprint leaves finish out: a plain claimNext's key matches its retry whatever the input's shape.
      const { finish: _finish, ...plain } = sent;
      const claimed = await createOnce<ClaimResult | null>(uow, 'claimNext', sent.finish ? sent : plain,
        (stored) => this.claimedBefore(uow, sessionId, Number(stored.id)),
        async () => {
          const settled = finish ? await this.tasks.updateItemIn(uow, { id: finish.id, state, comment: finish.comment ?? null }) : null;
          finished = settled;
          const result = await this.claimFirstReady(uow, sessionId, domain, ttl, settled ? { task: settled.view.task, items: settled.items } : null);
          return { result, stored: result ? { id: String(result.item.id) } : null };
        });
      return { claimed, finished };
    });
  }

  /**
   * claimNext's work: claims a free ready item of `domain` for `sessionId`
   * (claimReadyItem), or null. The task's history lock is taken before the
   * claim, so the claim is stamped after every wait of the write: the first
   * candidate whose task's lock is free, and, when every candidate's is held
   * by other writes and this write holds no task's locks, the first
   * candidate's, waiting for it.
   */
  private async claimFirstReady(
    uow: UnitOfWork, sessionId: string, domain: string, ttl: number,
    /**
     * The task this write settled an item of (claimNext with finish), its row and items as the settle left them: its
     * locks are held, so its ready items come first (an item the settle freed among them) and it is not read again. Another
     * task's history lock is then never waited for: waiting for it while holding this one's could deadlock with a
     * worker doing the same the other way round.
     */
    holding: { task: MemoryEntity; items: ItemEntity[] } | null = null,
  ): Promise<ClaimResult | null> {
    uow.touchDomain(domain);
    const passed: number[] = [];
    const owner = uow.caller.principal ?? null;
    for (let attempt = 0; attempt < CLAIM_NEXT_TRIES; attempt += 1) {
      const spec = { domain, passed, sessionId, owner, ttlSeconds: ttl, preferTask: holding?.task.id ?? null };
      let taken = await claimReadyItem(uow.manager, { ...spec, wait: false });
      if (!taken.ready && taken.busy && !holding) taken = await claimReadyItem(uow.manager, { ...spec, wait: true });
      const { ready, stamps } = taken;
      if (!ready) return null;
      // Checked once there is something to take: with nothing ready the answer is null, at a cap or not. A claim at the
      // cap is refused here, and the refusal rolls back the claim the statement wrote.
      if (attempt === 0) await this.checkClaimCaps(uow, sessionId, ready);
      const { item } = ready;
      if (!stamps) {
        passed.push(item.id);
        continue;
      }
      const claim = { itemId: item.id, taskId: item.taskId, sessionId, owner };
      // Read after the claim's statement took the task's history lock (that statement's own reads predate the lock), so
      // the history row records the list as it stands and the answer shows the task (its version, its counts) as this
      // write leaves it: the claim itself changes neither. The task held is as this write's settle left it.
      const view = holding?.task.id === item.taskId ? taskViewOf(holding.task, holding.items) : await taskViewIn(uow.manager, item.taskId);
      // The task cannot have gone: the claim's statement locked its item's rows (SQLite: the write lock), which a delete takes.
      if (!view) throw new Error(`claimNext claimed item ${item.id} of task ${item.taskId}, which it then could not read`);
      await recordClaim(uow, { id: item.taskId, domain: ready.domain }, view.all, 'ITEM_CLAIMED', { itemId: String(item.id), kind: 'CLAIMED', text: item.text, from: null, to: sessionId }, null, { last: true });
      return { item, claim: Object.assign(new ClaimEntity(), claim, stamps, { takenFrom: null }), view };
    }
    return null;
  }

  /**
   * A claimNext replay: the item the key's first call claimed, with the
   * session's claim on it (null once it ended: released, settled, or lapsed
   * with no one else on it, which the fence lets the session go on with).
   * CLAIMED when another session has taken it since; null (NOT_FOUND) when
   * the item is gone.
   */
  private async claimedBefore(uow: UnitOfWork, sessionId: string, itemId: number): Promise<ClaimResult | null> {
    const item = await uow.manager.findOneBy(ItemEntity, { id: itemId, deleted: false });
    if (!item) return null;
    const [held] = await liveClaimsOf(uow.manager, [item.id]);
    if (held && held.sessionId !== sessionId) throw claimNextTakenOver(String(item.id), sessionId, held.sessionId, held.expiresAt, await readDbNow(uow.manager));
    const view = await taskViewIn(uow.manager, item.taskId);
    return view && { item, claim: held ?? null, view };
  }

  /** Moves a held claim (on an item of `task`) to expire `ttl` seconds after the database's clock as it is written: a change-log event, no history row. */
  private async extend(uow: UnitOfWork, task: Pick<MemoryEntity, 'id' | 'domain'>, held: ClaimEntity, ttl: number): Promise<ClaimEntity> {
    const expiresAt = await setClaimExpiry(uow.manager, held.itemId, ttl);
    uow.emit({
      entity: 'TASK', id: String(task.id), action: 'CLAIM_RENEWED', memory: { kind: 'TASK', domain: task.domain },
      about: { itemId: String(held.itemId), sessionId: held.sessionId },
    });
    return Object.assign(held, { expiresAt });
  }

  /**
   * TOO_LARGE when the calling session holds CLAIMS_PER_SESSION_MAX live
   * claims, or (with auth on) its bearer token's sessions hold
   * CLAIMS_PER_TOKEN_MAX between them. Without auth there is no token to
   * count by: the per-session cap still holds. `held`: the session's and
   * its owner's live claims when the caller has read them already.
   */
  private async checkClaimCaps(uow: UnitOfWork, sessionId: string, held?: { sessionClaims: number; ownerClaims: number }): Promise<void> {
    if ((held?.sessionClaims ?? (await liveClaimCount(uow.manager, sessionId))) >= CLAIMS_PER_SESSION_MAX) throw tooManyClaims(sessionId);
    const owner = uow.caller.principal;
    if (owner && (held?.ownerClaims ?? (await liveClaimCountOfOwner(uow.manager, owner))) >= CLAIMS_PER_TOKEN_MAX) throw tooManyClaimsForToken();
  }

  /** The calling session's id: a claim is always a session's (NO_SESSION without one). */
  private async callingSession(uow: UnitOfWork, action: string): Promise<string> {
    const sessionId = await uow.knownSessionId();
    if (!sessionId) throw claimNeedsSession(action);
    return sessionId;
  }
}
