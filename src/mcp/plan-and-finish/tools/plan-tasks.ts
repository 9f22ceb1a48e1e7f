import { z } from 'zod';
import { planAfter } from '../../common/plan-view.js';
import { callerOf } from '../../common/tool-context.js';
import { OUTPUT, reply, run, maxItems, maxTextLength, minItems } from '../plan-and-finish.parts.js';
import { defineTool } from '../../common/tool-definition.js';

export const planTasksTool = defineTool(
  'plan_tasks',
  {
    title: 'Write down the plan',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    description: `Before you start, write down what you intend to do: ${minItems} to ${maxItems} tasks, each something you could report on, at most ${maxTextLength} characters. The list is written once; afterwards use update_task to move a task and add_task for work you did not plan. You cannot finish until every task is done, blocked or dropped.
Example: {"tasks": ["Reproduce the crash with the failing input", "Fix the parser", "Run the test suite and read its output"]}`,
    inputSchema: { tasks: z.array(z.string()).describe('The tasks in order; blank entries are skipped.') },
    outputSchema: OUTPUT,
  },
  async ({ tasks }, ctx) =>
    run(ctx, 'plan_tasks', async (sessionId) => {
      const texts = tasks.map((text) => text.trim()).filter(Boolean);
      return reply(sessionId, null, planAfter(await ctx.services.plans.setPlan(await callerOf(ctx), texts)));
    }),
);
