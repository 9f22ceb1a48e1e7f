import { z } from 'zod';
import { itemLine, itemView, taskSummary } from '../kb-read.js';
import { callerOf, requireWrite } from '../../common/tool-context.js';
import { answer } from '../../common/tool-result.js';
import { TASK, run } from '../kb-tasks.parts.js';
import { defineTool } from '../../common/tool-definition.js';

export const taskTool = defineTool(
  'task',
  {
    title: 'Open a task',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    description: `Open a knowledge-base task: a goal plus a checklist that outlives this chat (open tasks come first in every later session). items is one label per line, each a short verb-first label of at most 80 characters; domain is a scope such as acme/checkout/billing. Free text cites an item as [[#id]].
Example: {"title": "Move billing webhooks to the idempotent handler", "goal": "Every billing webhook is deduplicated by event id.", "items": "Key charge.succeeded by event id\\nCover refunds and disputes", "domain": "acme/checkout/billing"}`,
    inputSchema: {
      title: z.string(), goal: z.string(),
      items: z.string().describe('One label per line.'),
      domain: z.string().describe('e.g. acme/checkout/billing'),
    },
    outputSchema: { uid: z.string(), items: z.array(z.string()).describe('The item ids, in order.'), task: TASK },
  },
  async ({ title, goal, items, domain }, ctx) =>
    run(ctx, async () => {
      requireWrite(ctx);
      const made = await ctx.services.tasks.createTask(await callerOf(ctx), { title, goal, itemsText: items, domain });
      const lines = made.view.live.map((item) => `  ${itemLine(itemView(made.view, item))}`).join('\n');
      return answer(`Created task ${made.task.id} "${made.task.title}" in ${made.task.domain} with ${made.items.length} items:\n${lines}`, {
        uid: String(made.task.id), items: made.items.map((item) => String(item.id)), task: taskSummary(made.view),
      });
    }),
);
