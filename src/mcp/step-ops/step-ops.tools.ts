import { z } from 'zod';
import type { DomainError } from '../../domain/errors.js';
import type { ItemState } from '../../domain/states.js';
import type { PlanResult } from '../../services/sessions/plan.service.js';
import { planAfter, readPlan, requireSessionId, type PlanView } from '../common/plan-view.js';
import { callerOf, requireWrite, type ToolContext } from '../common/tool-context.js';
import type { ToolRegistrar } from '../common/tool-registry.js';
import { answer, guarded, ToolRefusal } from '../common/tool-result.js';
import { fittingCount } from '../common/answer-budget.js';
import { NO_PLAN_TEXT, stepCounts, stepLine, stepOpsStatus, stepsCount, STEP_STATUSES, type StepLine } from '../../domain/plan-render.js';
import { statusLine } from '../../domain/plan-rules.js';

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

const DESCRIPTION = `Track the steps of the current task and what you verified. Ops: set (replace the plan with fresh pending steps: destructive, discards every status), add (append steps found mid-task, keeping every step and its status; needs a plan), update (one step by its 1-based index; answers with that step and the counts), view (every step with its status and validation; a long plan comes in pages, index N starts at step N), clear (reset; rarely right).
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
}

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

function stepData(step: StepLine, index: number) {
  return { index: index + 1, text: step.text, status: stepOpsStatus(step.state), validation: step.note };
}

/**
 * An update's answer: the step it changed, the counts and the status line,
 * never the rest of the plan. Rendering every step with every validation on
 * each update made the answers grow with all that was ever written (40 steps
 * of 600-character validations: 604 KB over 40 updates); view shows the rest.
 */
function updated(sessionId: string, message: string, plan: PlanView, index: number) {
  const step = plan.steps[index - 1]!;
  const status = statusLine(plan.steps);
  return answer(`${message}\n\n${stepLine(step, index - 1)}\nStatus: ${status} ({"op": "view"} shows every step)`, {
    sessionId, op: 'update', message, steps: [stepData(step, index - 1)], statusLine: status, more: 0,
  });
}

/**
 * The plan from step `from`, as many steps as fit one answer (answer-budget.ts),
 * and, when more follow, how to read them: a plan of 200 steps with long
 * validations would otherwise pass what a client lets a model read.
 */
function reply(sessionId: string, op: Op, message: string, plan: PlanView | null, from = 1) {
  const steps = plan?.steps ?? [];
  const status = statusLine(plan ? plan.steps : null);
  if (!plan) return answer(`${message}\n\n${NO_PLAN_TEXT}`, { sessionId, op, message, steps: [], statusLine: status, more: 0 });
  if (steps.length === 0) return answer(`${message}\n\n(the plan has no steps)`, { sessionId, op, message, steps: [], statusLine: status, more: 0 });
  const start = from - 1;
  const lines = steps.slice(start).map((step, offset) => stepLine(step, start + offset));
  const shown = fittingCount(lines);
  const last = start + shown;
  const more = steps.length - last;
  const page = start > 0 || more > 0
    ? `\n(steps ${from}-${last} of ${steps.length} shown${more ? `; ${more} more: {"op": "view", "index": ${last + 1}}` : ''})`
    : '';
  return answer(`${message}\n\n${lines.slice(0, shown).join('\n')}${page}`, {
    sessionId, op, message, steps: steps.slice(start, last).map((step, offset) => stepData(step, start + offset)), statusLine: status, more,
  });
}

/**
 * The service's refusals in this tool's words (its ops, its statuses, its
 * index), from each refusal's details, never from the service's message.
 */
function translate(args: TodoArgs, error: DomainError): string | null {
  const { details } = error;
  switch (error.code) {
    case 'NOTE_REQUIRED':
      return (
        `validation_required: marking step ${args.index} ${args.status} needs validation: what you checked and what it showed ` +
        '(e.g. "ran npm test: 38 passed"), not what you did. Nothing changed; send the update again with validation.'
      );
    case 'STEP_OUT_OF_RANGE': {
      const n = details.count ?? 0;
      return n === 0
        ? 'index out of range: the plan has no steps. Add some with {"op": "add", "tasks": [...]} first.'
        : `index out of range: the plan has ${stepsCount(n)}, so index must be ${n === 1 ? '1' : `from 1 to ${n}`} (1-based, as view numbers them).`;
    }
    case 'NO_PLAN':
      return `${NO_PLAN_TEXT} Create one with {"op": "set", "tasks": [...]} first.`;
    case 'PLAN_LOCKED':
      return (
        `this plan is written once (the session's rules say so), so ${args.op ?? 'set'} may not rewrite it. ` +
        'Move a step with {"op": "update", "index": N, "status": ...}, or append one with {"op": "add", "tasks": [...]}.'
      );
    case 'PLAN_SIZE':
      return details.current === undefined
        ? `the plan would have ${stepsCount(details.count ?? 0)}; the limit is ${details.limit}. Group the small steps: each should be something you can verify.`
        : `the plan has ${stepsCount(details.current)} and would have ${details.count}; the limit is ${details.limit}. Group the small steps, or drop ones no longer needed.`;
    case 'TEXT_TOO_LONG':
      return `step ${details.step} is ${details.count} characters; keep each step to ${details.limit}. The detail belongs in the work and in the validation.`;
    case 'EMPTY_TEXT':
      return `step ${details.step} is empty once trimmed; give every step in tasks some text.`;
    case 'TOO_MANY_IN_PROGRESS':
      return (
        `step ${details.step} cannot start: step ${details.otherStep} is already in_progress, and this session allows one step in progress at a time. ` +
        `Move step ${details.otherStep} to done (with validation), failed or dropped first.`
      );
    default:
      return null;
  }
}
