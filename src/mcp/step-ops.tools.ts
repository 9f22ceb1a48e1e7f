import { z } from 'zod';
import type { DomainError } from '../domain/errors.js';
import type { ItemState } from '../domain/states.js';
import type { PlanResult } from '../services/sessions/plan.service.js';
import { readPlan, requireSessionId, type PlanView } from './plan-view.js';
import { callerOf, requireWrite, type ToolContext } from './tool-context.js';
import type { ToolRegistrar } from './tool-registry.js';
import { answer, guarded, ToolRefusal } from './tool-result.js';
import { NO_PLAN_TEXT, renderSteps, stepOpsStatus, STEP_STATUSES } from './step-ops.render.js';

const OPS = ['set', 'add', 'update', 'view', 'clear'] as const;
type Op = (typeof OPS)[number];

interface TodoArgs {
  op?: string;
  index?: number;
  status?: string;
  validation?: string;
  tasks?: string[];
}

/**
 * The op a call means: the one named, else inferred (index with status is an
 * update, tasks alone a set, nothing at all a view). An add is never
 * inferred: it must be named, so a plan is never extended by accident.
 */
export function inferOp(args: TodoArgs): Op {
  if (args.op !== undefined) {
    if ((OPS as readonly string[]).includes(args.op)) return args.op as Op;
    throw new ToolRefusal(`unknown op "${args.op}". Valid ops: ${OPS.join(', ')}.`);
  }
  const hasIndex = args.index !== undefined;
  const hasStatus = args.status !== undefined;
  if (hasIndex && hasStatus) return 'update';
  if (args.tasks !== undefined && !hasIndex && !hasStatus) return 'set';
  if (!hasIndex && !hasStatus && args.validation === undefined) return 'view';
  throw new ToolRefusal(
    `cannot tell which op this is. Send op (${OPS.join(', ')}), or index with status for an update, or tasks alone for a set.`,
  );
}

const DESCRIPTION = `Track the steps of the current task and what you verified. Ops: set (replace the plan with fresh pending steps: destructive, discards every status), add (append steps found mid-task, keeping every step and its status; needs a plan), update (one step by its 1-based index), view (every step with its status and validation), clear (reset; rarely right).
Statuses: pending, in_progress, done, failed, dropped. done needs validation: say what you checked and what it showed, not what you did. failed should carry one too.
op may be left out: index with status is an update, tasks alone is a set.
Example: {"op": "update", "index": 2, "status": "done", "validation": "ran npm test: 38 passed"}`;

const STEP = z.object({ index: z.number().int(), text: z.string(), status: z.string(), validation: z.string().nullable() });

/** step-ops: todo, the plan worked step by step (api/mcp.md). */
export function registerStepOpsTools(tools: ToolRegistrar): void {
  tools.registerTool(
    'todo',
    {
      title: 'Work the plan step by step',
      description: DESCRIPTION,
      inputSchema: {
        op: z.string().optional().describe('set, add, update, view or clear; inferred when left out.'),
        index: z.number().int().optional().describe('update: the 1-based step, as view numbers it.'),
        status: z.string().optional().describe('update: pending, in_progress, done, failed or dropped.'),
        validation: z.string().optional().describe('update: what you checked and what it showed (needed for done).'),
        tasks: z.array(z.string()).optional().describe('set/add: the steps, one short line each.'),
      },
      outputSchema: {
        sessionId: z.string(),
        op: z.string(),
        message: z.string(),
        steps: z.array(STEP).describe('The whole plan after the call; empty when there is none.'),
      },
    },
    async (args, ctx) => guarded(ctx.logger, () => runTodo(ctx, args), (error) => translate(ctx, args, error)),
  );
}

async function runTodo(ctx: ToolContext, args: TodoArgs) {
  const op = inferOp(args);
  if (op !== 'view') requireWrite(ctx);
  const sessionId = await requireSessionId(ctx);
  if (op === 'view') {
    const plan = await readPlan(ctx, sessionId);
    if (!plan) return answer(NO_PLAN_TEXT, { sessionId, op, message: NO_PLAN_TEXT, steps: [] });
    return reply(sessionId, op, `Plan of ${plan.steps.length} steps.`, plan);
  }
  const caller = await callerOf(ctx);
  const plans = ctx.services.plans;
  let result: PlanResult;
  let tip = '';
  switch (op) {
    case 'set':
      result = await plans.setPlan(caller, args.tasks ?? []);
      break;
    case 'add':
      if (!args.tasks?.length) throw new ToolRefusal('add needs tasks: the steps to append, e.g. {"op": "add", "tasks": ["Update the changelog"]}.');
      result = await plans.addSteps(caller, args.tasks);
      break;
    case 'update': {
      if (args.index === undefined || args.status === undefined) {
        throw new ToolRefusal('update needs index (the 1-based step) and status, e.g. {"op": "update", "index": 1, "status": "in_progress"}.');
      }
      const state = STEP_STATUSES[args.status as keyof typeof STEP_STATUSES] as ItemState | undefined;
      if (!state) throw new ToolRefusal(`invalid status "${args.status}". Use one of: ${Object.keys(STEP_STATUSES).join(', ')}.`);
      const validation = args.validation?.trim() ? args.validation : null;
      result = await plans.updateStep(caller, { step: args.index, state, note: validation });
      if (state === 'FAILED' && !validation) {
        tip = '\nTip: give failed a validation (what you tried and what it showed); it is what makes re-planning possible.';
      }
      break;
    }
    case 'clear':
      result = await plans.clearPlan(caller);
      break;
  }
  const plan = await readPlan(ctx, sessionId);
  return reply(sessionId, op, result.message + tip, plan);
}

function reply(sessionId: string, op: Op, message: string, plan: PlanView | null) {
  const steps = plan?.steps ?? [];
  const text = plan ? `${message}\n\n${renderSteps(steps)}` : `${message}\n\n${NO_PLAN_TEXT}`;
  return answer(text, {
    sessionId,
    op,
    message,
    steps: steps.map((step, index) => ({ index: index + 1, text: step.text, status: stepOpsStatus(step.state), validation: step.note })),
  });
}

/** The service's refusals in this tool's words (its ops, its statuses, its index). */
async function translate(ctx: ToolContext, args: TodoArgs, error: DomainError): Promise<string | null> {
  switch (error.code) {
    case 'NOTE_REQUIRED':
      return (
        `validation_required: marking step ${args.index} ${args.status} needs validation: what you checked and what it showed ` +
        '(e.g. "ran npm test: 38 passed"), not what you did. Nothing changed; send the update again with validation.'
      );
    case 'STEP_OUT_OF_RANGE': {
      const sessionId = await ctx.session.id();
      const n = sessionId ? ((await readPlan(ctx, sessionId))?.steps.length ?? 0) : 0;
      return `index out of range: the plan has ${n} step${n === 1 ? '' : 's'}, so index must be ${n === 1 ? '1' : `from 1 to ${n}`} (1-based, as view numbers them).`;
    }
    case 'NO_PLAN':
      return `${NO_PLAN_TEXT} Create one with {"op": "set", "tasks": [...]} first.`;
    default:
      return null;
  }
}
