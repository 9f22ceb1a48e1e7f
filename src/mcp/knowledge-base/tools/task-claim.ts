import { z } from 'zod';
import { CLAIM_TTL_DEFAULT } from '../../../domain/claims.js';
import { claimPhrase, claimView } from '../kb-claims.js';
import { itemLine, itemView, summaryText, taskSummary } from '../kb-read.js';
import { CLAIM, TTL } from '../kb-coordination.parts.js';
import { callerOf, requireWrite } from '../../common/tool-context.js';
import { answer, ToolRefusal } from '../../common/tool-result.js';
import { ITEM, run } from '../kb-tasks.parts.js';
import { defineTool } from '../../common/tool-definition.js';

const ACTIONS = ['claim', 'renew', 'release'] as const;

export const taskClaimTool = defineTool(
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
      // The task as the claim's own transaction read it: nothing is read again.
      const { view: task } = result;
      const view = itemView(task, task.all.find((candidate) => candidate.id === result.item.id)!);
      const claim = claimView(result.claim);
      const lead = claim
        ? `${action === 'renew' ? 'Renewed' : 'Claimed'} item ${view.id} "${view.text}": ${claimPhrase(claim, caller.sessionId)}. Renew it (action "renew") before then while you work.`
        : `Item ${view.id} "${view.text}" is not claimed now: other agents may take it.`;
      return answer(`${lead}\n${itemLine(view)}\n${summaryText(taskSummary(task))}`, { item: view, task: String(task.task.id), claim });
    }),
);
