import { z } from 'zod';
import { loadMemory } from '../kb-read.js';
import { callerOf, requireWrite } from '../../common/tool-context.js';
import { ToolRefusal } from '../../common/tool-result.js';
import { MEMORY, describeNote, describeTask, run } from '../kb-memories.parts.js';
import { defineTool } from '../../common/tool-definition.js';

export const editMemoryTool = defineTool(
  'edit_memory',
  {
    title: 'Correct a memory in place',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    description: 'Correct a task or a note where it stands instead of filing it again: title, domain, and a task\'s goal or a note\'s body.\nExample: {"uid": "12", "goal": "Every billing and refund webhook is deduplicated by event id."}',
    inputSchema: { uid: z.string(), title: z.string().optional(), goal: z.string().optional(), body: z.string().optional(), domain: z.string().optional() },
    outputSchema: MEMORY.shape,
  },
  async ({ uid, title, goal, body, domain }, ctx) =>
    run(ctx, async () => {
      const memory = await loadMemory(ctx, uid);
      if (memory.kind === 'TASK' && body !== undefined) throw new ToolRefusal('a task has a goal, not a body: send goal (and title or domain) to change it.');
      if (memory.kind === 'NOTE' && goal !== undefined) throw new ToolRefusal('a note has a body, not a goal: send body (and title or domain) to change it.');
      if ([title, goal, body, domain].every((value) => value === undefined)) {
        throw new ToolRefusal(`say what to change: title, domain, or the ${memory.kind === 'TASK' ? 'task\'s goal' : 'note\'s body'}.`);
      }
      requireWrite(ctx);
      const caller = await callerOf(ctx);
      // Answered from what the edit wrote: the service returns the memory (a task with its items), so nothing is read again.
      if (memory.kind === 'TASK') return describeTask(ctx, await ctx.services.tasks.editTask(caller, { id: uid, title: title ?? null, goal: goal ?? null, domain: domain ?? null }));
      return describeNote(await ctx.services.notes.editNote(caller, { id: uid, title: title ?? null, body: body ?? null, domain: domain ?? null }));
    }),
);
