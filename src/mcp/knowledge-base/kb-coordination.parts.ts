import { z } from 'zod';
import { CLAIM_TTL_DEFAULT, CLAIM_TTL_MAX, CLAIM_TTL_MIN, CLAIM_WAIT_MAX } from '../../domain/claims.js';
import type { QueueState } from '../../services/claims/claim-reader.js';

/** What the coordination tools (task_claim, task_next, task_ready) share: their schemas and how an empty queue is told. */

export const CLAIM = z.object({ session: z.string(), claimed_at: z.string(), expires_at: z.string() });
export const TTL = z.number().int().optional().describe(`Seconds the claim holds without renewal: ${CLAIM_TTL_MIN}..${CLAIM_TTL_MAX}, default ${CLAIM_TTL_DEFAULT}.`);

/** The longest task_next holds a call (domain/claims.ts). */
export const WAIT_MAX = CLAIM_WAIT_MAX;

export const QUEUE = z.object({
  claimed: z.number().int().describe('Open items held by a live claim.'),
  waiting: z.number().int().describe('Unclaimed open items waiting for an item that is not done or dropped.'),
  stuck: z.number().int().describe('Blocked or failed items: no one can take them until someone settles them.'),
  next_lease_ends_in: z.number().int().nullable().describe('Seconds until the soonest claim ends; null with no claim.'),
});

/** The outcome, words and counts of an empty queue (task_next's and task_ready's). */
export function whyNothingIsReady(domain: string, queue: QueueState, waited: number | null) {
  const nextIn = queue.nextExpiry ? Math.max(0, Math.ceil((Date.parse(queue.nextExpiry) - Date.parse(queue.now)) / 1000)) : null;
  const data = { claimed: queue.claimed, waiting: queue.waiting, stuck: queue.stuck, next_lease_ends_in: nextIn };
  const items = (n: number) => `${n} item${n === 1 ? '' : 's'}`;
  const stuck = queue.stuck ? `${items(queue.stuck)} ${queue.stuck === 1 ? 'is' : 'are'} blocked or failed` : '';
  if (queue.open === 0 && queue.stuck === 0) {
    return { outcome: 'all_done', data, text: `All done in ${domain}: every item there is settled (done or dropped); nothing is left to take. Stop here, or look in another domain.` };
  }
  if (queue.open === 0) {
    return {
      outcome: 'stuck', data,
      text: `Nothing to take in ${domain}, and not all done: ${stuck}, and no item is open. Waiting will not help: someone must settle those (task_item: done, dropped, or back to todo).`,
    };
  }
  const reasons = [
    queue.claimed ? `${items(queue.claimed)} ${queue.claimed === 1 ? 'is' : 'are'} claimed${nextIn === null ? '' : ` (the next claim ends in ${nextIn} s)`}` : '',
    queue.waiting ? `${items(queue.waiting)} wait${queue.waiting === 1 ? 's' : ''} for other items to be done or dropped` : '',
    stuck,
  ].filter(Boolean);
  const free = queue.open - queue.claimed - queue.waiting;
  if (free > 0) reasons.push(`${items(free)} became ready as this answered`);
  const waitedFor = waited === null ? '' : ` (waited ${waited} s)`;
  return {
    outcome: 'wait', data,
    text: `Nothing is ready in ${domain} yet${waitedFor}; wait: ${reasons.join('; ')}. Call task_next again with wait_seconds (up to ${WAIT_MAX}): it answers as soon as an item is ready.`,
  };
}
