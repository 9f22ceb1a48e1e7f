import { z } from 'zod';
import { CLAIM_TTL_DEFAULT, CLAIM_TTL_MAX, CLAIM_TTL_MIN } from '../../domain/claims.js';
import type { ClaimResult } from '../../services/claims/claim.service.js';
import { claimPhrase, claimView } from './kb-claims.js';
import { itemLine, itemView, loadTask, summaryText, taskSummary } from './kb-read.js';
import { noteViews } from './kb-tasks.tools.js';
import { callerOf, requireWrite, type ToolContext } from '../common/tool-context.js';
import type { ToolRegistrar } from '../common/tool-registry.js';
import { answer, guarded, ToolRefusal } from '../common/tool-result.js';

const CLAIM = z.object({ session: z.string(), claimed_at: z.string(), expires_at: z.string() });
const ITEM = z.object({ id: z.string(), number: z.number().int().nullable(), text: z.string(), state: z.string(), note: z.string().nullable(), deleted: z.boolean() });
const TTL = z.number().int().optional().describe(`Seconds the claim holds without renewal: ${CLAIM_TTL_MIN}..${CLAIM_TTL_MAX}, default ${CLAIM_TTL_DEFAULT}.`);
const ACTIONS = ['claim', 'renew', 'release'] as const;

/** The service's words are GraphQL's; these tools' are their own. */
function toolWords(message: string): string {
  return message
    .replace(/\bclaimNext\b/g, 'task_next').replace(/\bready lists the unclaimed ones, task_next claims one\b/g, 'task_next claims one')
    .replace(/\brenewClaim\b/g, 'task_claim (action "renew")').replace(/\breleaseClaim\b/g, 'task_claim (action "release")')
    .replace(/\bclaimItem\b/g, 'task_claim').replace(/\bttlSeconds\b/g, 'ttl_seconds').replace(/\bupdateItem\b/g, 'task_item');
}

/** knowledge-base, the coordination tools: task_claim and task_next (api/mcp.md), for several agents on one backlog. */
export function registerKbCoordinationTools(tools: ToolRegistrar): void {
  const run = (ctx: ToolContext, work: () => Promise<ReturnType<typeof answer>>) => guarded(ctx.logger, work, (error) => toolWords(error.message));

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
Example: {"domain": "acme/checkout/billing"}`,
      inputSchema: { domain: z.string().describe('e.g. acme/checkout/billing'), ttl_seconds: TTL },
      outputSchema: {
        item: ITEM.nullable().describe('The item claimed; null when nothing is ready.'),
        task: z.string().nullable().describe('Its task uid.'),
        claim: CLAIM.nullable(),
        briefs: z.array(z.record(z.string(), z.unknown())).describe('The briefs on the item, rendered as task_read shows notes.'),
      },
    },
    async ({ domain, ttl_seconds: ttlSeconds }, ctx) =>
      run(ctx, async () => {
        requireWrite(ctx);
        const caller = await callerOf(ctx);
        const result: ClaimResult | null = await ctx.services.claims.claimNext(caller, { domain, ttlSeconds: ttlSeconds ?? null });
        if (!result) {
          return answer(
            `Nothing is ready in ${domain}: every open item there is claimed, waits for another item, or there is none. must_read shows the open tasks; try again later.`,
            { item: null, task: null, claim: null, briefs: [] },
          );
        }
        const loaded = await loadTask(ctx, String(result.item.taskId));
        const view = itemView(loaded, loaded.all.find((candidate) => candidate.id === result.item.id)!);
        const claim = claimView(result.claim)!;
        const briefs = await noteViews(ctx, loaded, (await ctx.services.taskNoteReader.taskNotes(loaded.task.id, result.item.id, 20, null)).nodes);
        const text = [
          `Claimed item ${view.id} "${view.text}" (#${view.number} of task ${loaded.task.id}): ${claimPhrase(claim, caller.sessionId)}. Renew it with task_claim while you work; mark it done with task_item when finished.`,
          summaryText(taskSummary(loaded)),
          briefs.length ? briefs.map((brief) => brief.text).join('\n\n') : 'No brief on this item: the task\'s goal is what it serves.',
        ].join('\n\n');
        return answer(text, { item: view, task: String(loaded.task.id), claim, briefs: briefs.map((brief) => brief.data) });
      }),
  );
}
