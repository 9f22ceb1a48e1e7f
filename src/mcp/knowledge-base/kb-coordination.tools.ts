import { z } from 'zod';
import { CLAIM_TTL_DEFAULT, CLAIM_TTL_MAX, CLAIM_TTL_MIN } from '../../domain/claims.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ClaimResult } from '../../services/claims/claim.service.js';
import type { QueueState } from '../../services/claims/claim-reader.js';
import { cleanDomain } from '../../domain/domains.js';
import { claimPhrase, claimView, fenceLine } from './kb-claims.js';
import { itemLine, itemView, loadTask, summaryText, taskSummary } from './kb-read.js';
import { noteViews } from './kb-tasks.tools.js';
import { kbRefusal } from './kb-refusals.js';
import { callerOf, requireWrite, type ToolContext } from '../common/tool-context.js';
import type { ToolRegistrar } from '../common/tool-registry.js';
import { answer, guarded, ToolRefusal } from '../common/tool-result.js';

const CLAIM = z.object({ session: z.string(), claimed_at: z.string(), expires_at: z.string() });
const ITEM = z.object({ id: z.string(), number: z.number().int().nullable(), text: z.string(), state: z.string(), note: z.string().nullable(), deleted: z.boolean() });
const TTL = z.number().int().optional().describe(`Seconds the claim holds without renewal: ${CLAIM_TTL_MIN}..${CLAIM_TTL_MAX}, default ${CLAIM_TTL_DEFAULT}.`);
const ACTIONS = ['claim', 'renew', 'release'] as const;

/** knowledge-base, the coordination tools: task_claim and task_next (api/mcp.md), for several agents on one backlog. */
export function registerKbCoordinationTools(tools: ToolRegistrar): void {
  const run = (ctx: ToolContext, work: () => Promise<ReturnType<typeof answer>>) => guarded(ctx.logger, work, kbRefusal);

  tools.registerTool(
    'task_claim',
    {
      title: 'Claim, renew or release an item',
      // Claiming again renews and releasing again is a no-op: a retry changes nothing more.
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
      description: `Tell other agents you are working on an item. Claim it before you start (action "claim", the default): another agent's claim on it is refused with who holds it and until when. Renew it while you work (action "renew"): the claim lasts ttl_seconds (default ${CLAIM_TTL_DEFAULT}) and expires if you stop, so a crashed agent never holds work for ever. Release it (action "release") when you stop without finishing; marking the item done or dropped with task_item ends the claim by itself. To take the next free item of a domain, use task_next instead.
Example: {"item": "57", "action": "renew", "ttl_seconds": 900}`,
      inputSchema: {
        item: z.string().describe('The item id.'),
        action: z.string().optional().describe('claim (default), renew or release.'),
        ttl_seconds: TTL,
      },
      outputSchema: { item: ITEM, task: z.string().describe('The task uid.'), claim: CLAIM.nullable().describe('The claim after the call; null once released.') },
    },
    async ({ item, action = 'claim', ttl_seconds: ttlSeconds }, ctx) =>
      run(ctx, async () => {
        if (!(ACTIONS as readonly string[]).includes(action)) throw new ToolRefusal(`action must be claim, renew or release (got "${action}").`);
        requireWrite(ctx);
        const caller = await callerOf(ctx);
        const input = { id: item, ttlSeconds: ttlSeconds ?? null };
        const result = action === 'claim' ? await ctx.services.claims.claimItem(caller, input)
          : action === 'renew' ? await ctx.services.claims.renewClaim(caller, input)
            : await ctx.services.claims.releaseClaim(caller, item);
        const loaded = await loadTask(ctx, String(result.item.taskId));
        const view = itemView(loaded, loaded.all.find((candidate) => candidate.id === result.item.id)!);
        const claim = claimView(result.claim);
        const lead = claim
          ? `${action === 'renew' ? 'Renewed' : 'Claimed'} item ${view.id} "${view.text}": ${claimPhrase(claim, caller.sessionId)}. Renew it (action "renew") before then while you work.`
          : `Item ${view.id} "${view.text}" is not claimed now: other agents may take it.`;
        return answer(`${lead}\n${itemLine(view)}\n${summaryText(taskSummary(loaded))}`, { item: view, task: String(loaded.task.id), claim });
      }),
  );

  tools.registerTool(
    'task_next',
    {
      title: 'Take the next ready item',
      // Each call claims another item.
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
      description: `Claim the next item ready to start in a domain (and those under it) and read it, with its task and its briefs, so you can start at once. Ready means open (todo or doing), claimed by no one, and every item it waits for (depends_on) done or dropped; the oldest task's items come first, in list order. Two agents never get the same item. The claim lasts ttl_seconds (default ${CLAIM_TTL_DEFAULT}): renew it with task_claim while you work, mark the item done with task_item when finished; if you stop, the claim expires and the item is ready again for another agent.
When nothing is ready it says why: wait (items are claimed or wait for others; it gives the counts and when the next claim ends) or all done (every item is settled: stop). With wait_seconds (up to ${WAIT_MAX}) it holds until an item is ready and claims it, instead of you polling.
Example: {"domain": "acme/checkout/billing", "wait_seconds": 30}`,
      inputSchema: {
        domain: z.string().describe('e.g. acme/checkout/billing'),
        ttl_seconds: TTL,
        wait_seconds: z.number().int().optional().describe(`When nothing is ready, hold up to this many seconds (0..${WAIT_MAX}, default 0) for an item to become ready.`),
        done: z.string().optional().describe('The id of an item you hold and finished: marked done in the same call, before the next is claimed, as task_item would (if your claim was taken over it is refused, and nothing is claimed).'),
      },
      outputSchema: {
        outcome: z.string().describe('claimed; wait (nothing ready yet); stuck (nothing open but blocked or failed items); all_done (every item settled).'),
        item: ITEM.nullable().describe('The item claimed; null when nothing is ready.'),
        task: z.string().nullable().describe('Its task uid.'),
        claim: CLAIM.nullable(),
        briefs: z.array(z.record(z.string(), z.unknown())).describe('The briefs on the item, rendered as task_read shows notes.'),
        queue: QUEUE.nullable().describe('Why nothing was ready: null when an item was claimed.'),
      },
    },
    async ({ domain, ttl_seconds: ttlSeconds, wait_seconds: waitSeconds = 0, done }, ctx) =>
      run(ctx, async () => {
        if (waitSeconds < 0 || waitSeconds > WAIT_MAX) throw new ToolRefusal(`wait_seconds must be 0 to ${WAIT_MAX} (got ${waitSeconds}); call again to wait longer.`);
        requireWrite(ctx);
        const scope = cleanDomain(domain);
        const caller = await callerOf(ctx);
        const began = Date.now();
        // Answered a little before the time is up, so a client whose own timeout is the same (the SDK's is 60 s) gets the answer.
        const deadline = began + Math.max(0, waitSeconds * 1000 - WAIT_MARGIN_MS);
        let doneLeft = done ?? null;
        let doneLine: string | null = null;
        for (;;) {
          // Opened before the queue is read: a change committed between the read and the wait still wakes it.
          const watch = waitSeconds > 0 ? ctx.wakeups.watch(scope) : null;
          try {
            // `done` is settled by the first call only (committed even when nothing was ready): a wait does not repeat it.
            const { claimed: result, finished } = await ctx.services.claims.finishAndClaimNext(caller, { domain: scope, ttlSeconds: ttlSeconds ?? null, finish: doneLeft ? { id: doneLeft } : null });
            if (finished) doneLine = [`Marked item ${finished.item.id} "${finished.item.text}" done.`, fenceLine(finished.fence, finished.item.id)].filter(Boolean).join(' ');
            doneLeft = null;
            if (result) return withLead(doneLine, await claimedAnswer(ctx, result, caller.sessionId));
            const queue = await ctx.services.claimReader.queueState(scope);
            const left = deadline - Date.now();
            if (queue.open === 0 || !watch || left <= 0) return withLead(doneLine, emptyAnswer(domain, queue, waitSeconds > 0 ? Math.round((Date.now() - began) / 1000) : null));
            // A claim that runs out records no change: wake when the soonest one ends, too.
            const leaseEnds = queue.nextExpiry ? Date.parse(queue.nextExpiry) - Date.parse(queue.now) + LEASE_SLACK_MS : Infinity;
            await watch.changed(Math.min(left, Math.max(0, leaseEnds)));
          } finally {
            watch?.close();
          }
        }
      }),
  );
  registerTaskReady(tools);
}

/** Items task_ready lists at most: the first of the queue, as task_next would hand them out. */
const READY_SHOWN = 20;

/** knowledge-base's read-only view of the ready queue: what task_next would hand out next, claiming nothing. */
function registerTaskReady(tools: ToolRegistrar): void {
  tools.registerTool(
    'task_ready',
    {
      title: 'See what is ready',
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
      description: `List the items ready to start in a domain (and those under it), in the order task_next hands them out (at most ${READY_SHOWN}), claiming none; when none is, why (as task_next says it).
Example: {"domain": "acme/checkout"}`,
      inputSchema: { domain: z.string() },
      outputSchema: {
        items: z.array(z.object({ id: z.string(), text: z.string(), task: z.string() })).describe('The ready items, first to be handed out first.'),
        queue: QUEUE.nullable().describe('Why nothing is ready: null when an item is.'),
      },
    },
    async ({ domain }, ctx) =>
      guarded(ctx.logger, async () => {
        const scope = cleanDomain(domain);
        const ready = await ctx.services.claimReader.ready(scope, READY_SHOWN);
        if (ready.length === 0) {
          const { text, data } = whyNothingIsReady(domain, await ctx.services.claimReader.queueState(scope), null);
          return answer(text, { items: [], queue: data });
        }
        const items = ready.map((item) => ({ id: String(item.id), text: item.text, task: String(item.taskId) }));
        const lines = items.map((item) => `item ${item.id} "${item.text}" (task ${item.task})`);
        return answer(`Ready in ${domain}, first to be handed out first (task_next claims the first):\n${lines.join('\n')}`, { items, queue: null });
      }, kbRefusal),
  );
}

/** An answer with `lead` (what else the call did) as its first line. */
function withLead(lead: string | null, result: CallToolResult): CallToolResult {
  const [first] = result.content;
  if (!lead || first?.type !== 'text') return result;
  return { ...result, content: [{ ...first, text: `${lead}\n\n${first.text}` }, ...result.content.slice(1)] };
}

/** The longest task_next holds a call: a client's request timeout is often 60 s. */
const WAIT_MAX = 60;
/** How much before wait_seconds is up a waiting task_next answers. */
const WAIT_MARGIN_MS = 300;
/** Past a lease's end before looking again, so the database's clock has passed it too. */
const LEASE_SLACK_MS = 50;

const QUEUE = z.object({
  claimed: z.number().int().describe('Open items held by a live claim.'),
  waiting: z.number().int().describe('Unclaimed open items waiting for an item that is not done or dropped.'),
  stuck: z.number().int().describe('Blocked or failed items: no one can take them until someone settles them.'),
  next_lease_ends_in: z.number().int().nullable().describe('Seconds until the soonest claim ends; null with no claim.'),
});

async function claimedAnswer(ctx: ToolContext, result: ClaimResult, self: string | null) {
  const loaded = await loadTask(ctx, String(result.item.taskId));
  const view = itemView(loaded, loaded.all.find((candidate) => candidate.id === result.item.id)!);
  const claim = claimView(result.claim)!;
  const briefs = await noteViews(ctx, loaded, (await ctx.services.taskNoteReader.taskNotes(loaded.task.id, result.item.id, 20, null)).nodes);
  const text = [
    `Claimed item ${view.id} "${view.text}" (#${view.number} of task ${loaded.task.id}): ${claimPhrase(claim, self)}. Renew it with task_claim while you work; mark it done with task_item when finished.`,
    summaryText(taskSummary(loaded)),
    briefs.length ? briefs.map((brief) => brief.text).join('\n\n') : 'No brief on this item: the task\'s goal is what it serves.',
  ].join('\n\n');
  return answer(text, { outcome: 'claimed', item: view, task: String(loaded.task.id), claim, briefs: briefs.map((brief) => brief.data), queue: null });
}

/**
 * Why nothing was claimed, told apart: all done (nothing open and nothing
 * stuck: stop), stuck (nothing open, but blocked or failed items someone
 * must settle), or wait (open items claimed or waiting for others), with the
 * counts and when the next claim ends, so an agent knows whether and how
 * long to wait instead of polling.
 */
function emptyAnswer(domain: string, queue: QueueState, waited: number | null) {
  const { outcome, text, data } = whyNothingIsReady(domain, queue, waited);
  return answer(text, { outcome, queue: data, item: null, task: null, claim: null, briefs: [] });
}

/** The outcome, words and counts of an empty queue (task_next's and task_ready's). */
function whyNothingIsReady(domain: string, queue: QueueState, waited: number | null) {
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
