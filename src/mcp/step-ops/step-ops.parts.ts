import { z } from 'zod';
import type { DomainError } from '../../domain/errors.js';
import type { PlanView } from '../common/plan-view.js';
import { answer, ToolRefusal } from '../common/tool-result.js';
import { fittingCount } from '../common/answer-budget.js';
import { NO_PLAN_TEXT, stepLine, stepOpsStatus, stepsCount, type StepLine } from '../../domain/plan-render.js';
import { statusLine } from '../../domain/plan-rules.js';

/** What step-ops' todo is made of: its ops, how a call's op is told, and how its answers and refusals read. */

const OPS = ['set', 'add', 'update', 'view', 'clear'] as const;
export type Op = (typeof OPS)[number];

export interface TodoArgs {
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

export const STEP = z.object({ index: z.number().int(), text: z.string(), status: z.string(), validation: z.string().nullable() });

function stepData(step: StepLine, index: number) {
  return { index: index + 1, text: step.text, status: stepOpsStatus(step.state), validation: step.note };
}

/**
 * An update's answer: the step it changed, the counts and the status line,
 * never the rest of the plan: rendering every step with every validation on
 * each update would grow the answers with all that was ever written (40 steps
 * of 600-character validations: 604 KB over 40 updates); view shows the rest.
 */
export function updated(sessionId: string, message: string, plan: PlanView, index: number) {
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
export function reply(sessionId: string, op: Op, message: string, plan: PlanView | null, from = 1) {
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
export function translate(args: TodoArgs, error: DomainError): string | null {
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
