import { z } from 'zod';
import { planAfter, readPlan } from '../../common/plan-view.js';
import { callerOf } from '../../common/tool-context.js';
import { ToolRefusal } from '../../common/tool-result.js';
import { NOTHING_WRITTEN, OUTPUT, itemOfTask, reply, run, maxItems, maxTextLength } from '../plan-and-finish.parts.js';
import { defineTool } from '../../common/tool-definition.js';

export const addTaskTool = defineTool(
  'add_task',
  {
    title: 'Add a task you did not plan',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    description: `Add a task the work turned out to need, after the task after_id (at the end when it is left out or names no task). At most ${maxItems} tasks in all; the new task is marked "(added mid-session)" so the final list shows the plan grew.
Example: {"text": "Add a regression test for the empty input", "after_id": 2}`,
    inputSchema: {
      text: z.string().describe(`The task, at most ${maxTextLength} characters.`),
      after_id: z.number().int().optional().describe('Insert after this task id (a number; "2" is read as 2).'),
    },
    outputSchema: OUTPUT,
  },
  async ({ text, after_id }, ctx) =>
    run(ctx, 'add_task', async (sessionId) => {
      const plan = await readPlan(ctx, sessionId);
      if (!plan) throw new ToolRefusal(NOTHING_WRITTEN);
      if (!text.trim()) throw new ToolRefusal('a task needs some text.');
      const after = after_id === undefined ? null : itemOfTask(plan, after_id);
      return reply(sessionId, null, planAfter(await ctx.services.plans.addSteps(await callerOf(ctx), [text], after)));
    }),
);
