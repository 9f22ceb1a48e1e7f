import { z } from 'zod';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CLAIM_TTL_DEFAULT } from '../../../domain/claims.js';
import { cleanDomain } from '../../../domain/domains.js';
import type { ClaimResult } from '../../../services/claims/claim.service.js';
import type { QueueState } from '../../../services/claims/claim-reader.js';
import { claimNextOrWait } from '../../../services/claims/claim-waits.js';
import { claimPhrase, claimView, fenceLine } from '../kb-claims.js';
import { itemView, summaryText, taskSummary } from '../kb-read.js';
import { CLAIM, QUEUE, TTL, WAIT_MAX, whyNothingIsReady } from '../kb-coordination.parts.js';
import { callerOf, requireWrite, type ToolContext } from '../../common/tool-context.js';
import { answer, ToolRefusal } from '../../common/tool-result.js';
import { ITEM, noteViews, run } from '../kb-tasks.parts.js';
import { defineTool } from '../../common/tool-definition.js';

/** How much before wait_seconds is up a waiting task_next answers. */
const WAIT_MARGIN_MS = 300;

export const taskNextTool = defineTool(
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
      // Answered a little before the time is up, so a client whose own timeout is the same (the SDK's is 60 s) gets the answer.
      const waitMs = waitSeconds > 0 ? Math.max(0, waitSeconds * 1000 - WAIT_MARGIN_MS) : 0;
      const { claimed, finished, queue, waitedMs } = await claimNextOrWait(ctx.services, ctx.wakeups, caller,
        { domain: scope, ttlSeconds: ttlSeconds ?? null, finish: done ? { id: done } : null }, { waitMs, explain: true });
      const doneLine = finished ? [`Marked item ${finished.item.id} "${finished.item.text}" done.`, fenceLine(finished.fence, finished.item.id)].filter(Boolean).join(' ') : null;
      if (claimed) return withLead(doneLine, await claimedAnswer(ctx, claimed, caller.sessionId));
      return withLead(doneLine, emptyAnswer(domain, queue!, waitSeconds > 0 ? Math.round(waitedMs / 1000) : null));
    }),
);

/** An answer with `lead` (what else the call did) as its first line. */
function withLead(lead: string | null, result: CallToolResult): CallToolResult {
  const [first] = result.content;
  if (!lead || first?.type !== 'text') return result;
  return { ...result, content: [{ ...first, text: `${lead}\n\n${first.text}` }, ...result.content.slice(1)] };
}

/** The item claimed, in its task as the claim's transaction read it, with the briefs on it (read: the claim wrote none). */
async function claimedAnswer(ctx: ToolContext, result: ClaimResult, self: string | null) {
  const { view: task } = result;
  const view = itemView(task, task.all.find((candidate) => candidate.id === result.item.id)!);
  const claim = claimView(result.claim)!;
  const briefs = await noteViews(ctx, task, (await ctx.services.taskNoteReader.taskNotes(task.task.id, result.item.id, 20, null)).nodes);
  const text = [
    `Claimed item ${view.id} "${view.text}" (#${view.number} of task ${task.task.id}): ${claimPhrase(claim, self)}. Renew it with task_claim while you work; mark it done with task_item when finished.`,
    summaryText(taskSummary(task)),
    briefs.length ? briefs.map((brief) => brief.text).join('\n\n') : 'No brief on this item: the task\'s goal is what it serves.',
  ].join('\n\n');
  return answer(text, { outcome: 'claimed', item: view, task: String(task.task.id), claim, briefs: briefs.map((brief) => brief.data), queue: null });
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
