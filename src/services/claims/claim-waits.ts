import type { Caller } from '../kernel/unit-of-work.js';
import type { ItemChanged } from '../task-aggregate/task-view.js';
import type { ClaimResult, ClaimService, FinishInput } from './claim.service.js';
import type { ClaimReader, QueueState } from './claim-reader.js';
import type { WorkWakeups } from './work-wakeups.js';

/** Past a lease's end before looking again, so the database's clock has passed it too. */
const LEASE_SLACK_MS = 50;
/**
 * The longest a waiter sleeps between looks even when nothing woke it: a
 * change wakes one waiter, and a waiter passes on what it did not use, so
 * this only bounds what an unforeseen lost wake-up could cost the others.
 */
const LOOK_AGAIN_MS = 5_000;

/** What a claimNext that may wait answers: the claim (null when the time ran out), the item the first look settled, and why nothing was ready (with `explain`). */
export interface WaitedClaim {
  claimed: ClaimResult | null;
  finished: ItemChanged | null;
  /** The domain's open work as the last look left it; null when an item was claimed, or without `explain`. */
  queue: QueueState | null;
  /** How long the call waited, in ms. */
  waitedMs: number;
}

/**
 * claimNext that waits for work instead of the agent polling (GraphQL
 * claimNext's waitSeconds, task_next's wait_seconds): claims at once when an
 * item is ready, else holds until a change that may have freed one wakes it
 * (work-wakeups.ts), or a claim ends, then looks again, until `waitMs` is
 * up. `finish` is settled by the first look only (committed even when
 * nothing was ready). With `explain` each empty look also reads why nothing
 * was ready (task_next tells it), and a domain with nothing open answers at
 * once: waiting would not help. Without it, the call waits for work whatever
 * the domain holds, so a task created meanwhile is taken too.
 */
export async function claimNextOrWait(
  services: { claims: ClaimService; claimReader: ClaimReader },
  wakeups: WorkWakeups,
  caller: Caller,
  input: { domain: string; ttlSeconds?: number | null; idempotencyKey?: string | null; finish?: FinishInput | null },
  { waitMs, explain }: { waitMs: number; explain: boolean },
): Promise<WaitedClaim> {
  const began = Date.now();
  const deadline = began + Math.max(0, waitMs);
  let finish = input.finish ?? null;
  let finished: ItemChanged | null = null;
  let woken = false;
  for (;;) {
    // Opened before the queue is read: a change committed between the read and the wait still wakes it.
    const watch = waitMs > 0 ? wakeups.watch(input.domain) : null;
    // Whether this look used up its wake-ups (it found nothing, and waits again). Otherwise a wake-up it had, or one
    // that came during it, goes to the next waiter: it claimed (more may be free), it leaves, or it failed.
    let used = false;
    try {
      const { claimed, finished: settled } = await services.claims.finishAndClaimNext(caller, { ...input, finish }, input);
      finished ??= settled;
      finish = null;
      if (claimed) return { claimed, finished, queue: null, waitedMs: Date.now() - began };
      const queue = explain ? await services.claimReader.queueState(input.domain) : null;
      const left = deadline - Date.now();
      if (!watch || left <= 0 || queue?.open === 0) return { claimed: null, finished, queue, waitedMs: Date.now() - began };
      used = true;
      // A claim that runs out is told by a server's sweep a second later: wake when the soonest one ends, too.
      const leaseEnds = queue?.nextExpiry ? Date.parse(queue.nextExpiry) - Date.parse(queue.now) + LEASE_SLACK_MS : Infinity;
      woken = await watch.changed(Math.min(left, Math.max(0, leaseEnds), LOOK_AGAIN_MS));
    } finally {
      if (!used && (woken || watch?.woken)) watch?.passOn();
      watch?.close();
    }
  }
}
