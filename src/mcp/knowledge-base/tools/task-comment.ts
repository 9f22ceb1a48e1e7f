import { z } from 'zod';
import { rendered, targetsOf } from '../kb-text.js';
import { heldByAnotherLine } from '../kb-claims.js';
import { callerOf, requireWrite } from '../../common/tool-context.js';
import { answer } from '../../common/tool-result.js';
import { run } from '../kb-tasks.parts.js';
import { defineTool } from '../../common/tool-definition.js';

export const taskCommentTool = defineTool(
  'task_comment',
  {
    title: 'Comment',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    description: `Comment on a task, or on one of its items (item). Cite items as [[#id]]; the answer shows them rendered.
Example: {"uid": "12", "body": "Disputes need their own queue, like [[#58]]?"}`,
    inputSchema: { uid: z.string(), body: z.string(), item: z.string().optional().describe('Comment on this item.') },
    outputSchema: { id: z.string(), body: z.string(), text: z.string().describe('The body with [[#id]] rendered.'), item: z.string().nullable() },
  },
  async ({ uid, body, item }, ctx) =>
    run(ctx, async () => {
      requireWrite(ctx);
      const caller = await callerOf(ctx);
      // The service refuses a uid that names no task and an item that is not one of its own; it answers with the task as it wrote it.
      const { comment, view } = await ctx.services.comments.addComment(caller, { taskId: uid, body, item: item ?? null, tasksOnly: true });
      const text = rendered(comment.body, targetsOf(view.all));
      const on = comment.itemId === null ? null : view.all.find((candidate) => candidate.id === comment.itemId)!;
      const held = on ? await heldByAnotherLine(ctx, on, caller.sessionId) : null;
      return answer(`Comment ${comment.id} on ${item ? `item ${item}` : `task ${uid}`}: ${text}${held ? `\n${held}` : ''}`, {
        id: String(comment.id), body: comment.body, text, item: comment.itemId === null ? null : String(comment.itemId),
      });
    }),
);
