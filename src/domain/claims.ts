import { DomainError } from './errors.js';
import { SETTLED_ITEM_STATES, type ItemState } from './states.js';

/**
 * Claims: a session's lease on an item, so agents sharing a backlog can see
 * who works on what. A claim coordinates, it does not lock: work by another
 * session is accepted and its answer names the holder.
 */

export const CLAIM_TTL_MIN = 10;
export const CLAIM_TTL_MAX = 86_400;
export const CLAIM_TTL_DEFAULT = 900;
/** Live claims one session may hold at once, so Session.claims has a bound. */
export const CLAIMS_PER_SESSION_MAX = 100;

/** The ttl to use: the default when none is sent; BAD_USER_INPUT outside 10..86400 whole seconds. */
export function claimTtl(ttlSeconds: number | null | undefined): number {
  if (ttlSeconds === null || ttlSeconds === undefined) return CLAIM_TTL_DEFAULT;
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < CLAIM_TTL_MIN || ttlSeconds > CLAIM_TTL_MAX) {
    throw new DomainError(
      'BAD_USER_INPUT',
      `ttlSeconds is ${ttlSeconds}; a claim lasts ${CLAIM_TTL_MIN} to ${CLAIM_TTL_MAX} whole seconds (default ${CLAIM_TTL_DEFAULT}). Send a ttl in that range and renew the claim while you work.`,
    );
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

/** CLAIMED: another session's live claim holds the item. */
export function claimedBy(itemId: string, holder: string, expiresAt: string): DomainError {
  return new DomainError(
    'CLAIMED',
    `Item ${itemId} is claimed by session ${holder} until ${expiresAt}. Take another item (ready lists the unclaimed ones, claimNext claims one), or wait for that claim to end.`,
  );
}

/** NOT_CLAIMED: renewClaim by a session that holds no live claim on the item. */
export function notClaimed(itemId: string, sessionId: string): DomainError {
  return new DomainError(
    'NOT_CLAIMED',
    `Session ${sessionId} holds no live claim on item ${itemId} (it expired, was released, or was never taken). Claim it again with claimItem.`,
  );
}

/** NO_SESSION for a claim call without a session: a claim is always some session's. */
export function claimNeedsSession(action: string): DomainError {
  return new DomainError(
    'NO_SESSION',
    `${action} needs the calling agent session: send x-session-id with the id startSession returned. A person without a session may only release claims (releaseClaim).`,
  );
}

/** BAD_USER_INPUT for an item no claim can hold: settled or stuck work, or a step of a session's plan. */
export function notClaimable(itemId: string, reason: 'PLAN' | ItemState): DomainError {
  if (reason === 'PLAN') {
    return new DomainError('BAD_USER_INPUT', `Item ${itemId} is a step of a session's plan; claims are for items of knowledge-base tasks.`);
  }
  return new DomainError(
    'BAD_USER_INPUT',
    `Item ${itemId} is ${reason}; only PENDING or IN_PROGRESS items can be claimed. Reopen it with updateItem first, or take another item.`,
  );
}

/** TOO_LARGE once a session holds CLAIMS_PER_SESSION_MAX live claims. */
export function tooManyClaims(sessionId: string): DomainError {
  return new DomainError(
    'TOO_LARGE',
    `Session ${sessionId} already holds ${CLAIMS_PER_SESSION_MAX} live claims, the most one session may hold. Release the claims you are not working on (releaseClaim) first.`,
  );
}
