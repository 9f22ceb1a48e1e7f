import { z } from 'zod';
import { stillBlocks } from '../../../domain/claims.js';
import { parseId } from '../../../domain/task-rules.js';
import { itemLine, itemView, summaryText, taskSummary } from '../kb-read.js';
import { parseKbState } from '../kb-text.js';
import { fenceLine, heldByAnotherLine } from '../kb-claims.js';
import type { FenceVerdict } from '../../../domain/claims.js';
import type { TaskView } from '../../../services/task-aggregate/task-view.js';
import { callerOf, requireWrite } from '../../common/tool-context.js';
import { answer, ToolRefusal } from '../../common/tool-result.js';
import { ITEM, TASK, run } from '../kb-tasks.parts.js';
import { defineTool } from '../../common/tool-definition.js';

export const taskItemTool = defineTool(
  'task_item',
  {
    title: 'Change one item',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
    description: `Change one item of a task: its state (todo, doing, done, dropped), a comment (kept as the item's note when the state changes), a related memory to link, a new label (text; id, state and brief stay), what it waits for (after), or delete it (delete: true, alone in its call; no other item moves). Mark work decided against dropped rather than deleting it. Claims fence: while another agent's claim holds the item (or after your own lapsed claim was taken over), a state or text change is refused with who holds it and for how long; force: true with the reason in comment changes it anyway, and the override is recorded.
Example: {"uid": "12", "item": "57", "state": "done", "comment": "Handler keys off the event id."}`,
    inputSchema: {
      uid: z.string().describe('The task.'), item: z.string().describe('The item id.'),
      state: z.string().optional().describe('todo, doing, done or dropped.'),
      comment: z.string().optional(), related: z.string().optional().describe('A memory id to link to the item.'),
      text: z.string().optional().describe('A new label.'), delete: z.boolean().optional(),
      after: z.array(z.string()).optional().describe('Ids of items of this task it waits for (not ready until each is done or dropped); replaces the last after, [] clears.'),
      force: z.boolean().optional().describe("Change the state or text past another agent's claim; give the reason in comment."),
    },
    outputSchema: { item: ITEM, task: TASK },
  },
  async (args, ctx) =>
    run(ctx, async () => {
      const others = (['state', 'comment', 'related', 'text', 'after'] as const).filter((name) => args[name] !== undefined);
      const caller = await callerOf(ctx);
      let after: TaskView;
      let fence: FenceVerdict | null = null;
      if (args.delete) {
        if (others.length) throw new ToolRefusal(`a delete stands alone: send delete with uid and item only (not ${others.join(', ')}).`);
        requireWrite(ctx);
        after = await ctx.services.tasks.deleteItem(caller, args.item, { taskId: args.uid, notAPlan: true });
      } else {
        if (others.length === 0) throw new ToolRefusal('say what to change: state, comment, related, text, after, or delete: true.');
        const state = args.state === undefined ? null : parseKbState(args.state);
        requireWrite(ctx);
        ({ view: after, fence } = await ctx.services.tasks.updateItem(caller, {
          id: args.item, taskId: args.uid, state, comment: args.comment ?? null, text: args.text ?? null,
          related: args.related ? [args.related] : null, force: args.force ?? null, after: args.after ?? null, notAPlan: true,
        }));
      }
      // The task as the write left it: the service answers with it (and checked that the item is the task's), so nothing is read again.
      const item = after.all.find((candidate) => candidate.id === parseId(args.item))!;
      const view = itemView(after, item);
      const summary = taskSummary(after);
      const lead = args.delete ? `Deleted item ${view.id} "${view.text}"; no other item moved.` : itemLine(view);
      const held = args.delete ? null : await heldByAnotherLine(ctx, item, caller.sessionId);
      const lines = [lead, args.after ? waitsLine(after, args.after) : null, fence ? fenceLine(fence, item.id) : null, held, summaryText(summary)].filter(Boolean);
      return answer(lines.join('\n'), { item: view, task: summary });
    }),
);

/** What the item now waits for by its `after`, as task_read names items: the open ones by place and label. */
function waitsLine(task: TaskView, sent: readonly string[]): string {
  const ids = new Set(sent.map(parseId));
  const open = task.all.filter((candidate) => ids.has(candidate.id) && stillBlocks(candidate));
  if (sent.length === 0) return 'It waits for nothing by after now (its briefs\' depends_on still count).';
  if (open.length === 0) return 'Everything it waits for by after is settled.';
  return `Waits for ${open.map((target) => `#${itemView(task, target).number} ${target.text}`).join(', ')}: not ready until each is done or dropped.`;
}
