import { DomainError, refuse } from './errors.js';
import type { ChangeAction } from './history.js';
import { SETTLED_ITEM_STATES, type ItemState } from './states.js';

/**
 * Claims: a session's lease on an item, so agents sharing a backlog can see
 * who works on what. Claims fence: a state or text change by a session that
 * does not hold the item's live claim, while another session does, is
 * refused (CLAIMED), so no two agents are told DONE for one item.
 */

export const CLAIM_TTL_MIN = 1;
/** An hour: a lease is renewed while the work goes on, so one token cannot hold a domain's ready items for a day. */
export const CLAIM_TTL_MAX = 3_600;
export const CLAIM_TTL_DEFAULT = 900;
/** Live claims one session may hold at once, so Session.claims has a bound and one agent cannot take a whole queue. */
export const CLAIMS_PER_SESSION_MAX = 20;
/** Live claims the sessions of one bearer token may hold together (with auth on): many sessions of one token cannot take a whole queue either. */
export const CLAIMS_PER_TOKEN_MAX = 200;

/** The longest claimNext (waitSeconds) and task_next (wait_seconds) hold a call for work: a client's request timeout is often 60 s. */
export const CLAIM_WAIT_MAX = 60;

/** How long claimNext's waitSeconds holds the call, in ms: 0 when none is sent; BAD_USER_INPUT outside 0..CLAIM_WAIT_MAX whole seconds. */
export function claimWaitMs(waitSeconds: number | null | undefined): number {
  if (waitSeconds === null || waitSeconds === undefined) return 0;
  if (!Number.isInteger(waitSeconds) || waitSeconds < 0 || waitSeconds > CLAIM_WAIT_MAX) {
    throw new DomainError('BAD_USER_INPUT', `waitSeconds is 0..${CLAIM_WAIT_MAX} (got ${waitSeconds}): send at most ${CLAIM_WAIT_MAX}, and call again to wait longer.`, { field: 'waitSeconds' });
  }
  return waitSeconds * 1000;
}

/**
 * Whether a change to a task can have made an item ready: a settle, an item
 * added or restored, a claim released or lapsed, a wait or a brief changed.
 * Taking, renewing, renaming, moving, linking or commenting never does, so
 * an agent waiting for work is not woken by them (a claim is taken with
 * every item handed out).
 */
export function mayFreeWork(action: ChangeAction): boolean {
  return !NEVER_FREES.has(action);
}
const NEVER_FREES = new Set<ChangeAction>(['ITEM_CLAIMED', 'CLAIM_RENEWED', 'ITEM_RENAMED', 'ITEM_MOVED', 'ITEM_LINKED', 'COMMENT_ADDED', 'STEERING_SEEN', 'TURN_STARTED', 'REMINDED']);

/** The ttl to use: the default when none is sent; BAD_USER_INPUT outside 1..3600 whole seconds. */
export function claimTtl(ttlSeconds: number | null | undefined): number {
  if (ttlSeconds === null || ttlSeconds === undefined) return CLAIM_TTL_DEFAULT;
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < CLAIM_TTL_MIN || ttlSeconds > CLAIM_TTL_MAX) {
    throw refuse('CLAIM_TTL_OUT_OF_RANGE', {
      ttlSeconds, min: CLAIM_TTL_MIN, max: CLAIM_TTL_MAX, defaultSeconds: CLAIM_TTL_DEFAULT, limit: CLAIM_TTL_MAX, count: ttlSeconds,
    });
  }
  return ttlSeconds;
}

/** The time `ttlSeconds` after `now` (both ISO strings, as the database clock gives them). */
export function expiryAfter(now: string, ttlSeconds: number): string {
  return new Date(Date.parse(now) + ttlSeconds * 1000).toISOString();
}

/** Items that are still work: a claim holds only on these, and only these are ever ready. */
export function isOpenWork(state: ItemState): boolean {
  return state === 'PENDING' || state === 'IN_PROGRESS';
}

/** Whether an item may be ready at all, before what it waits for is read: a live item that is still work. */
export function mayBeReady(item: { deleted: boolean; state: ItemState }): boolean {
  return !item.deleted && isOpenWork(item.state);
}

/** Settled items end their claim, and no longer block the items waiting for them. */
export function isSettled(state: ItemState): boolean {
  return SETTLED_ITEM_STATES.includes(state);
}

/** Whether an item waited for still holds the waiting item back: it is there, not deleted, and neither done nor dropped. */
export function stillBlocks(target: { deleted: boolean; state: ItemState } | undefined): boolean {
  return target !== undefined && !target.deleted && !isSettled(target.state);
}

/** How long a claim still holds, as the tools say a lease: "for 840 s (until …)". */
export function leasePhrase(expiresAt: string, now: string): string {
  return `for ${secondsLeft(expiresAt, now)} s (until ${expiresAt})`;
}

/** Whole seconds from `now` until `expiresAt`, never below 0. */
export function secondsLeft(expiresAt: string, now: string): number {
  return Math.max(0, Math.ceil((Date.parse(expiresAt) - Date.parse(now)) / 1000));
}

/** CLAIMED: another session's live claim holds the item (`now` from the database's clock, for how long). */
export function claimedBy(itemId: string, holder: string, expiresAt: string, now?: string): DomainError {
  return refuse('CLAIMED_BY_OTHER', { itemId, holder, expiresAt, expiresInSeconds: now ? secondsLeft(expiresAt, now) : null });
}

/** The claim row of an item as the fence reads it: live or not, and whose lapsed claim it took over. */
export interface ClaimOnItem {
  sessionId: string;
  expiresAt: string;
  /** The session whose lapsed claim this one took over, if another's. */
  takenFrom: string | null;
}

/** What the fence let through: whether the caller's own claim had lapsed, and whose claim a forced change overrode. */
export interface FenceVerdict {
  lapsed: boolean;
  overrode: string | null;
}

/**
 * The fence on a state or text change of an item (claims fence). A caller
 * without a session (a person) always passes. A session passes when it
 * holds the live claim, or when no live claim is another's and its own claim
 * was not taken over: a holder whose lease ran out with no one else on the
 * item keeps working (`lapsed`). Otherwise CLAIMED, unless `force`: then it
 * passes and `overrode` names the session whose claim the change went past.
 * A session whose claim was taken over stays fenced after the taker's claim
 * ends (it finished the work, say), so a late DONE is refused, not answered
 * as if it had done it. `now` is the database's clock, read in the write's
 * transaction after the item's row is written.
 */
export function fenceItemChange(
  itemId: string,
  caller: string | null,
  claim: ClaimOnItem | null,
  now: string,
  force: boolean,
): FenceVerdict {
  const pass = { lapsed: false, overrode: null };
  if (!caller || !claim) return pass;
  const live = claim.expiresAt > now;
  if (claim.sessionId === caller) return { lapsed: !live, overrode: null };
  const takenOver = claim.takenFrom === caller;
  if (!live && !takenOver) return pass;
  if (force) return { lapsed: false, overrode: claim.sessionId };
  throw fenced(itemId, caller, claim, now, live, takenOver);
}

/** CLAIMED from the fence: whose claim holds (and for how long) or, for a session whose claim was taken over, that the work was taken over. */
function fenced(itemId: string, caller: string, claim: ClaimOnItem, now: string, live: boolean, takenOver: boolean): DomainError {
  const facts = { itemId, caller, holder: claim.sessionId, expiresAt: claim.expiresAt };
  if (!takenOver) return refuse('CLAIM_FENCED', { ...facts, expiresInSeconds: secondsLeft(claim.expiresAt, now), takenOver: false });
  return live
    ? refuse('CLAIM_TAKEN_OVER', { ...facts, expiresInSeconds: secondsLeft(claim.expiresAt, now), takenOver: true })
    : refuse('CLAIM_TAKEN_OVER_ENDED', { ...facts, takenOver: true });
}

/**
 * CLAIMED for a claimNext retried with its idempotencyKey after the claim it
 * took lapsed and another session took the item: answering the item would
 * tell the caller it holds work it no longer holds.
 */
export function claimNextTakenOver(itemId: string, caller: string, holder: string, expiresAt: string, now: string): DomainError {
  return refuse('CLAIM_NEXT_TAKEN_OVER', { itemId, caller, holder, expiresAt, expiresInSeconds: secondsLeft(expiresAt, now), takenOver: true });
}

/**
 * NOT_CLAIMED: renewClaim by a session that holds no live claim on the item.
 * Another session's live claim (the caller's lapsed and was taken), or an
 * item already done or dropped (by another agent, or by a person), is said
 * so: claiming it again would be refused too.
 */
export function notClaimed(itemId: string, sessionId: string, state: ItemState, other: { holder: string; expiresAt: string; now: string } | null): DomainError {
  if (other) {
    return refuse('NOT_CLAIMED_HELD_BY_OTHER', { itemId, sessionId, holder: other.holder, expiresAt: other.expiresAt, expiresInSeconds: secondsLeft(other.expiresAt, other.now) });
  }
  if (isSettled(state)) return refuse('NOT_CLAIMED_SETTLED', { itemId, sessionId, state });
  return refuse('NOT_CLAIMED', { itemId, sessionId });
}

/** NO_SESSION for a claim call without a session: a claim is always some session's. */
export function claimNeedsSession(operation: string): DomainError {
  return refuse('CLAIM_NEEDS_SESSION', { operation });
}

/** BAD_USER_INPUT for an item no claim can hold: settled or stuck work, or a step of a session's plan. */
export function notClaimable(itemId: string, reason: 'PLAN' | ItemState): DomainError {
  return reason === 'PLAN' ? refuse('CLAIM_ON_PLAN_STEP', { itemId }) : refuse('CLAIM_ON_SETTLED_ITEM', { itemId, state: reason });
}

/** TOO_LARGE once a session holds CLAIMS_PER_SESSION_MAX live claims. */
export function tooManyClaims(sessionId: string): DomainError {
  return refuse('CLAIMS_PER_SESSION', { sessionId, limit: CLAIMS_PER_SESSION_MAX });
}

/** TOO_LARGE once the sessions of the calling bearer token hold CLAIMS_PER_TOKEN_MAX live claims between them. */
export function tooManyClaimsForToken(): DomainError {
  return refuse('CLAIMS_PER_TOKEN', { limit: CLAIMS_PER_TOKEN_MAX });
}
