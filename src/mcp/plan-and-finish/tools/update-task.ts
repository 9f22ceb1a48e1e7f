import { z } from 'zod';
import type { ItemState } from '../../../domain/states.js';
import { numberedTasks, renderChecklist, TASK_STATUSES } from '../../../domain/plan-render.js';
import { planAfter, readPlan } from '../../common/plan-view.js';
import { callerOf } from '../../common/tool-context.js';
import { ToolRefusal } from '../../common/tool-result.js';
import { NOTHING_WRITTEN, OUTPUT, STATUS_WORDS, itemOfTask, reply, run, maxNoteLength } from '../plan-and-finish.parts.js';
import { defineTool } from '../../common/tool-definition.js';

export const updateTaskTool = defineTool(
  'update_task',
  {
    title: 'Move a task',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    description: `Change one task's status by its id (the number the list shows): in_progress when you start it, done when it is finished, blocked or dropped with a note saying why (the reason is what the user reads), pending to put it back. Notes are kept to their first ${maxNoteLength} characters.
Example: {"task_id": 2, "status": "blocked", "note": "The staging database is down; asked ops in #infra."}`,
    inputSchema: {
      task_id: z.number().int().describe('The task id, as the list shows it (a number; "3" is read as 3).'),
      status: z.string().describe('pending, in_progress, done, blocked or dropped.'),
      note: z.string().optional().describe('What you checked, or why it is blocked or dropped (needed for those two).'),
    },
    outputSchema: OUTPUT,
  },
  async ({ task_id, status, note }, ctx) =>
    run(ctx, 'update_task', async (sessionId) => {
      const plan = await readPlan(ctx, sessionId);
      if (!plan) throw new ToolRefusal(NOTHING_WRITTEN);
      const id = itemOfTask(plan, task_id);
      if (!id) {
        const known = numberedTasks(plan.all).map((task) => task.taskId).join(', ');
        throw new ToolRefusal(`there is no task ${task_id}. The tasks are: ${known}.\n\n${renderChecklist(plan.all)}`);
      }
      const state = TASK_STATUSES[status as keyof typeof TASK_STATUSES] as ItemState | undefined;
      if (!state) throw new ToolRefusal(`"${status}" is not a task status. Use ${STATUS_WORDS}.`);
      return reply(sessionId, null, planAfter(await ctx.services.plans.updateStep(await callerOf(ctx), { id, state, note: note ?? null })));
    }),
);
