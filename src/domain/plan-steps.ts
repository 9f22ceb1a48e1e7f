/**
 * The step operations on a session's plan (setPlan, addSteps, updateStep,
 * clearPlan): which rules check what an update changes, and how the answer
 * reads to the agent. A rule judges what the update sends; steps recorded
 * earlier under other rules are kept as they are (a plan written under a
 * longer maxTextLength is not refused when one of its steps is marked DONE).
 */
import { DomainError } from './errors.js';
import { checkPlanResize, checkStepText, countOf, planMessage, type PlanRules, type PlanStep } from './plan-rules.js';
import type { ItemState } from './states.js';

/** The refusal every plan mutation gives without a started session: the to-do tool's own words, which clients match on. */
export const NO_SESSION_MESSAGE = 'todo_write requires an owning agent session';

/**
 * NO_SESSION for every mutation that needs the calling session (the plan
 * mutations, setPlanRules, finishSession, startTurn, endTurn): the to-do
 * tool's exact words, which clients match on.
 */
export function noSession(): DomainError {
  return new DomainError('NO_SESSION', NO_SESSION_MESSAGE);
}

/** NO_PLAN: a step operation (or finishSession) before any plan is recorded. */
export function noPlan(operation: 'addSteps' | 'updateStep' | 'finishSession'): DomainError {
  const message =
    operation === 'finishSession'
      ? 'there is no plan: say what you intend to do (writeTodos or setPlan) before you claim to be finished.'
      : `${operation} needs a plan, and this session has none yet. Write one with writeTodos or setPlan first.`;
  return new DomainError('NO_PLAN', message, { operation });
}

/**
 * addSteps: checks that the plan does not grow past maxItems (PLAN_SIZE,
 * before any text is read), then the new texts (trimmed; EMPTY_TEXT,
 * TEXT_TOO_LONG). A new step may repeat a live one (a re-run after a fix):
 * its place and id tell them apart. minItems is not judged here: adding
 * never makes a plan smaller. `firstNumber` is the place the first new step
 * will take, so a refusal names the step as the rendered plan will. Returns
 * the trimmed texts.
 */
export function checkAddedSteps(liveCount: number, raw: readonly string[], firstNumber: number, rules: PlanRules): string[] {
  if (raw.length === 0) throw new DomainError('BAD_USER_INPUT', 'addSteps needs at least one step in steps.', { count: 0 });
  checkPlanResize(liveCount, liveCount + raw.length, rules);
  return raw.map((entry, index) => checkStepText(entry, firstNumber + index, rules));
}

/**
 * updateStep under the one-active rule: TOO_MANY_IN_PROGRESS when step
 * `index` (0-based) would become IN_PROGRESS while another step already is.
 * A plan recorded with several in progress may still settle them one by one.
 */
export function checkStepStart(steps: readonly PlanStep[], index: number, state: ItemState, rules: PlanRules): void {
  if (!rules.oneActive || state !== 'IN_PROGRESS') return;
  const others = steps.flatMap((step, at) => (at !== index && step.state === 'IN_PROGRESS' ? [at + 1] : []));
  if (others.length === 0) return;
  const [first] = others;
  throw new DomainError(
    'TOO_MANY_IN_PROGRESS',
    `step ${index + 1} cannot start: step ${first} "${steps[first! - 1]!.text}" is already IN_PROGRESS, and this session allows ` +
      `one step in progress at a time. Settle step ${first} first (DONE, FAILED, BLOCKED or DROPPED, with a note), then start step ${index + 1}.`,
    { state, step: index + 1, otherStep: first },
  );
}

/** setPlan's answer: the new plan's size, then the counts line. */
export function planSetMessage(steps: readonly PlanStep[]): string {
  return `New plan of ${countOf(steps.length, 'step')}, all PENDING. ${planMessage(steps)}`;
}

/** addSteps' answer: the places the new steps took, then the counts line. */
export function stepsAddedMessage(firstNumber: number, count: number, steps: readonly PlanStep[]): string {
  const places = count === 1 ? `step ${firstNumber}` : `steps ${firstNumber}-${firstNumber + count - 1}`;
  return `Added ${places}. ${planMessage(steps)}`;
}

/** updateStep's answer: the step as it now reads, then the counts line. */
export function stepUpdatedMessage(index: number, steps: readonly PlanStep[]): string {
  const step = steps[index]!;
  return `Step ${index + 1} "${step.text}" is ${step.state}. ${planMessage(steps)}`;
}

/** clearPlan's answer: how many steps went, or that there was nothing to clear. */
export function planClearedMessage(clearedSteps: number | null): string {
  if (clearedSteps === null) return 'There is no plan to clear; nothing changed.';
  return `Cleared the plan (${countOf(clearedSteps, 'step')}). The session has no plan until writeTodos or setPlan writes one.`;
}
