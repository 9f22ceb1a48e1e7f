import { z } from 'zod';
import type { ItemState } from '../../../domain/states.js';
import type { PlanResult } from '../../../services/sessions/plan.service.js';
import { planAfter, readPlan, requireSessionId } from '../../common/plan-view.js';
import { callerOf, requireWrite, type ToolContext } from '../../common/tool-context.js';
import { answer, guarded, ToolRefusal } from '../../common/tool-result.js';
import { defineTool } from '../../common/tool-definition.js';
import { NO_PLAN_TEXT, stepCounts, stepsCount, STEP_STATUSES } from '../../../domain/plan-render.js';
import { statusLine } from '../../../domain/plan-rules.js';
import { inferOp, reply, STEP, translate, updated, type TodoArgs } from '../step-ops.parts.js';

const DESCRIPTION = `Track the steps of the current task and what you verified. Ops: set (replace the plan with fresh pending steps: destructive, discards every status), add (append steps found mid-task, keeping every step and its status; needs a plan), update (one step by its 1-based index; answers with that step and the counts), view (every step with its status and validation; a long plan comes in pages, index N starts at step N), clear (reset; rarely right).
Statuses: pending, in_progress, done, failed, dropped. done needs validation: say what you checked and what it showed, not what you did. failed should carry one too.
op may be left out: index with status is an update, tasks alone is a set.
Example: {"op": "update", "index": 2, "status": "done", "validation": "ran npm test: 38 passed"}`;

/** step-ops' one tool: the plan worked step by step (api/mcp.md). */
export const todoTool = defineTool(
  'todo',
  {
    title: 'Work the plan step by step',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
    description: DESCRIPTION,
    inputSchema: {
      op: z.string().optional().describe('set, add, update, view or clear; inferred when left out.'),
      index: z.number().int().optional().describe('update: the 1-based step, as view numbers it (a number; "2" is read as 2). view: the step to start from.'),
      status: z.string().optional().describe('update: pending, in_progress, done, failed or dropped.'),
      validation: z.string().optional().describe('update: what you checked and what it showed (needed for done).'),
      tasks: z.array(z.string()).optional().describe('set/add: the steps, one short line each.'),
    },
    outputSchema: {
      sessionId: z.string(),
      op: z.string(),
      message: z.string(),
      steps: z.array(STEP).describe('The steps this answer shows: for update the step it changed; otherwise the plan after the call, a page of it when long (see more); empty when there is none.'),
      statusLine: z.string().describe('closed/total · the step in progress (else the next pending, else "wrapping up"); "planning" with no plan.'),
      more: z.number().int().describe('Steps after the last one shown: read them with {"op": "view", "index": N}.'),
    },
  },
  async (args, ctx) => guarded(ctx.logger, () => runTodo(ctx, args), (error) => translate(args, error)),
);

async function runTodo(ctx: ToolContext, args: TodoArgs) {
  const op = inferOp(args);
  if (op !== 'view') requireWrite(ctx);
  const sessionId = await requireSessionId(ctx);
  if (op === 'view') {
    const plan = await readPlan(ctx, sessionId);
    if (!plan) return answer(NO_PLAN_TEXT, { sessionId, op, message: NO_PLAN_TEXT, steps: [], statusLine: statusLine(null), more: 0 });
    const n = plan.steps.length;
    const from = args.index ?? 1;
    if (n > 0 && (from < 1 || from > n)) {
      throw new ToolRefusal(`index out of range: the plan has ${stepsCount(n)}, so view's index (the step to start from) must be ${n === 1 ? '1' : `from 1 to ${n}`}.`);
    }
    return reply(sessionId, op, `Plan of ${stepsCount(n)}.`, plan, from);
  }
  const caller = await callerOf(ctx);
  const plans = ctx.services.plans;
  let result: PlanResult;
  let lead: string;
  let tip = '';
  switch (op) {
    case 'set':
      // set takes the whole list; an empty one is what clear is for, and is most often a misspelt tasks.
      if (!args.tasks?.length) throw new ToolRefusal('set needs tasks: the whole list of steps, e.g. {"op": "set", "tasks": ["Reproduce the bug", "Fix it"]}. To empty the plan, send {"op": "clear"}.');
      result = await plans.setPlan(caller, args.tasks);
      lead = `New plan of ${stepsCount(args.tasks.length)}, all pending.`;
      break;
    case 'add': {
      if (!args.tasks?.length) throw new ToolRefusal('add needs tasks: the steps to append, e.g. {"op": "add", "tasks": ["Update the changelog"]}.');
      result = await plans.addSteps(caller, args.tasks);
      const { place = 0, added = 0 } = result.change ?? {};
      lead = added === 1 ? `Added step ${place}.` : `Added steps ${place}-${place + added - 1}.`;
      break;
    }
    case 'update': {
      if (args.index === undefined || args.status === undefined) {
        throw new ToolRefusal('update needs index (the 1-based step) and status, e.g. {"op": "update", "index": 1, "status": "in_progress"}.');
      }
      const state = STEP_STATUSES[args.status as keyof typeof STEP_STATUSES] as ItemState | undefined;
      if (!state) throw new ToolRefusal(`invalid status "${args.status}". Use one of: ${Object.keys(STEP_STATUSES).join(', ')}.`);
      const validation = args.validation?.trim() ? args.validation : null;
      result = await plans.updateStep(caller, { step: args.index, state, note: validation });
      lead = `Step ${args.index} is ${args.status}.`;
      if (state === 'FAILED' && !validation) {
        tip = '\nTip: give failed a validation (what you tried and what it showed); it is what makes re-planning possible.';
      }
      break;
    }
    case 'clear': {
      result = await plans.clearPlan(caller);
      const cleared = result.change?.cleared ?? null;
      lead = cleared === null
        ? 'There is no plan to clear; nothing changed.'
        : `Cleared the plan (${stepsCount(cleared)}). There is no plan until {"op": "set", "tasks": [...]} writes one.`;
      break;
    }
  }
  const plan = planAfter(result);
  const counts = plan ? ` ${stepCounts(plan.steps)}` : '';
  if (op === 'update' && plan) return updated(sessionId, lead + counts + tip, plan, args.index!);
  return reply(sessionId, op, lead + counts + tip, plan);
}
