import { z } from 'zod';
import { splitItemsText } from '../../../domain/text-rules.js';
import { itemLine, itemView, summaryText, taskSummary } from '../kb-read.js';
import { callerOf, requireWrite } from '../../common/tool-context.js';
import { answer, ToolRefusal } from '../../common/tool-result.js';
import { TASK, run } from '../kb-tasks.parts.js';
import { defineTool } from '../../common/tool-definition.js';

export const taskAddTool = defineTool(
  'task_add',
  {
    title: 'Add items',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    description: `Add items to a task, one label per line, after the item after (at the end when left out). Adding to a closed task reopens it.
Example: {"uid": "12", "items": "Document the replay queue", "after": "58"}`,
    inputSchema: { uid: z.string(), items: z.string().describe('One label per line.'), after: z.string().optional().describe('Insert after this item id.') },
    outputSchema: { items: z.array(z.string()), task: TASK },
  },
  async ({ uid, items, after }, ctx) =>
    run(ctx, async () => {
      const labels = splitItemsText(items);
      if (labels.length === 0) throw new ToolRefusal('items holds no label: send one label per line.');
      requireWrite(ctx);
      // The service refuses a uid that names no task and an after that is not one of its items; it answers with the task as it wrote it.
      const added = await ctx.services.tasks.addItems(await callerOf(ctx), { taskId: uid, items: labels, after: after ?? null, tasksOnly: true });
      const now = added.view;
      const lines = added.items.map((item) => `  ${itemLine(itemView(now, now.all.find((c) => c.id === item.id)!))}`).join('\n');
      return answer(`Added ${added.items.length} item${added.items.length === 1 ? '' : 's'}:\n${lines}\n${summaryText(taskSummary(now))}`, {
        items: added.items.map((item) => String(item.id)), task: taskSummary(now),
      });
    }),
);
