import { z } from 'zod';
import { summaryLine } from '../../../domain/plan-render.js';
import { callerOf } from '../../common/tool-context.js';
import { OUTPUT, reply, run } from '../plan-and-finish.parts.js';
import { defineTool } from '../../common/tool-definition.js';

export const finishTool = defineTool(
  'finish',
  {
    title: 'Finish',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    description: `Call when you are done. Refused while any task is pending or in progress: finish each one, or mark it blocked or dropped with the reason. Once accepted, answers with the summary ("7 tasks: 5 done, 1 blocked, 1 dropped.") and the final list.
Example: {}`,
    inputSchema: {},
    outputSchema: { ...OUTPUT, summary: z.string() },
  },
  async (_args, ctx) =>
    run(ctx, 'finish', async (sessionId) => {
      // The service answers with the finished list from its own transaction: nothing is read again.
      const { session, items } = await ctx.services.sessions.finishSession(await callerOf(ctx));
      const plan = { session, all: items, steps: items.filter((item) => !item.deleted) };
      const summary = summaryLine(plan.all);
      const result = reply(sessionId, summary, plan);
      return { ...result, structuredContent: { ...result.structuredContent, summary } };
    }),
);
