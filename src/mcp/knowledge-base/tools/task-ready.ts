import { z } from 'zod';
import { cleanDomain } from '../../../domain/domains.js';
import { QUEUE, whyNothingIsReady } from '../kb-coordination.parts.js';
import { kbRefusal } from '../kb-refusals.js';
import { answer, guarded } from '../../common/tool-result.js';
import { defineTool } from '../../common/tool-definition.js';

/** Items task_ready lists at most: the first of the queue, as task_next would hand them out. */
const READY_SHOWN = 20;

/** knowledge-base's read-only view of the ready queue: what task_next would hand out next, claiming nothing. */
export const taskReadyTool = defineTool(
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
