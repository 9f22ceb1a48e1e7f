import { z } from 'zod';
import { itemLine, itemOf, itemView, loadTask, summaryText, taskSummary, type LoadedTask } from '../kb-read.js';
import { parseKbState } from '../kb-text.js';
import { fenceLine, heldByAnotherLine } from '../kb-claims.js';
import type { FenceVerdict } from '../../../domain/claims.js';
import { callerOf, requireWrite } from '../../common/tool-context.js';
import { answer, ToolRefusal } from '../../common/tool-result.js';
import { ITEM, TASK, run } from '../kb-tasks.parts.js';
import { defineTool } from '../../common/tool-definition.js';

export const taskItemTool = defineTool(
  'task_item',
  {
    title: 'Change one item',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
    description: `Change one item of a task: its state (todo, doing, done, dropped), a comment (kept as the item's note when the state changes), a related memory to link, a new label (text; id, state and brief stay), or delete it (delete: true, alone in its call; no other item moves). Mark work decided against dropped rather than deleting it. Claims fence: while another agent's claim holds the item (or after your own lapsed claim was taken over), a state or text change is refused with who holds it and for how long; force: true with the reason in comment changes it anyway, and the override is recorded.
Example: {"uid": "12", "item": "57", "state": "done", "comment": "Handler keys off the event id."}`,
    inputSchema: {
      uid: z.string().describe('The task.'), item: z.string().describe('The item id.'),
      state: z.string().optional().describe('todo, doing, done or dropped.'),
      comment: z.string().optional(), related: z.string().optional().describe('A memory id to link to the item.'),
      text: z.string().optional().describe('A new label.'), delete: z.boolean().optional(),
      force: z.boolean().optional().describe("Change the state or text past another agent's claim; give the reason in comment."),
    },
    outputSchema: { item: ITEM, task: TASK },
  },
  async (args, ctx) =>
    run(ctx, async () => {
      const loaded = await loadTask(ctx, args.uid);
      const item = itemOf(loaded, args.item);
      const others = (['state', 'comment', 'related', 'text'] as const).filter((name) => args[name] !== undefined);
      const caller = await callerOf(ctx);
      let after: LoadedTask;
      let fence: FenceVerdict | null = null;
      if (args.delete) {
        if (others.length) throw new ToolRefusal(`a delete stands alone: send delete with uid and item only (not ${others.join(', ')}).`);
        requireWrite(ctx);
        after = await ctx.services.tasks.deleteItem(caller, String(item.id));
      } else {
        if (others.length === 0) throw new ToolRefusal('say what to change: state, comment, related, text, or delete: true.');
        const state = args.state === undefined ? null : parseKbState(args.state);
        requireWrite(ctx);
        ({ view: after, fence } = await ctx.services.tasks.updateItem(caller, {
          id: String(item.id), state, comment: args.comment ?? null, text: args.text ?? null, related: args.related ? [args.related] : null, force: args.force ?? null,
        }));
      }
      // The task as the write left it: the service answers with it, so nothing is read again.
      const view = itemView(after, after.all.find((candidate) => candidate.id === item.id)!);
      const summary = taskSummary(after);
      const lead = args.delete ? `Deleted item ${view.id} "${view.text}"; no other item moved.` : itemLine(view);
      const held = args.delete ? null : await heldByAnotherLine(ctx, item, caller.sessionId);
      const lines = [lead, fence ? fenceLine(fence, item.id) : null, held, summaryText(summary)].filter(Boolean);
      return answer(lines.join('\n'), { item: view, task: summary });
    }),
);
