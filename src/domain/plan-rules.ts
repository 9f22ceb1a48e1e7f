/**
 * A session's plan rules, and how a plan reads back to the agent that wrote it.
 *
 * A plan is the agent's own statement of what it intends to do; the rules make
 * it a standard the agent can be held to (a settled step says what was checked
 * or why, and the session cannot finish while a step is still open).
 */
import { DomainError } from './errors.js';
import { textLength } from './text-rules.js';
import { hasRefToken } from './refs.js';
import { ITEM_STATES, isActive, type ItemState } from './states.js';

export interface PlanRules {
  /** At most one step IN_PROGRESS at a time. */
  oneActive: boolean;
  /** States that need a note when a step is moved into them. */
  noteRequiredFor: ItemState[];
  minItems: number;
  maxItems: number;
  maxTextLength: number;
}

/** A change of some rules; a field left out or null keeps its value. */
export type PlanRulesChange = { [K in keyof PlanRules]?: PlanRules[K] | null };

/** The largest plan any rules may allow, and the longest step text. */
/** A plan is written whole (writeTodos, setPlan) in one call, so it holds at most what one call may send. */
export const MAX_ITEMS_CEILING = 100;
const MAX_TEXT_CEILING = 1000;

/**
 * Rules of a new session. Frozen: it is shared by every session, so a caller
 * that mutated it would change the defaults of all the others.
 */
export const DEFAULT_PLAN_RULES: PlanRules = Object.freeze({
  oneActive: false,
  noteRequiredFor: Object.freeze<ItemState[]>(['DONE', 'FAILED', 'BLOCKED', 'DROPPED']) as ItemState[],
  minItems: 0,
  maxItems: 50,
  maxTextLength: 160,
});

/**
 * Merges a partial change onto `base` and validates the result:
 * 0 <= minItems <= maxItems <= 100, 1 <= maxTextLength <= 1000, and
 * noteRequiredFor (deduplicated, first appearance kept) holds settled states
 * only, since a note is asked for when a step settles. A field that is
 * undefined or null keeps its value (GraphQL sends null for "not given").
 * Refuses with BAD_USER_INPUT. Returns a new object; `base` is not touched.
 */
export function mergePlanRules(base: PlanRules, change: PlanRulesChange): PlanRules {
  const merged: PlanRules = {
    oneActive: change.oneActive ?? base.oneActive,
    noteRequiredFor: [...new Set(change.noteRequiredFor ?? base.noteRequiredFor)],
    minItems: change.minItems ?? base.minItems,
    maxItems: change.maxItems ?? base.maxItems,
    maxTextLength: change.maxTextLength ?? base.maxTextLength,
  };
  const { minItems, maxItems, maxTextLength } = merged;
  if (![minItems, maxItems].every(Number.isInteger) || minItems < 0 || minItems > maxItems || maxItems > MAX_ITEMS_CEILING) {
    throw new DomainError(
      'BAD_USER_INPUT',
      `plan size rules must be whole numbers with 0 <= minItems <= maxItems <= ${MAX_ITEMS_CEILING}; ` +
        `these rules would give minItems ${minItems} and maxItems ${maxItems}. Send values in that range.`,
    );
  }
  if (!Number.isInteger(maxTextLength) || maxTextLength < 1 || maxTextLength > MAX_TEXT_CEILING) {
    throw new DomainError(
      'BAD_USER_INPUT',
      `maxTextLength must be a whole number from 1 to ${MAX_TEXT_CEILING} (got ${maxTextLength}).`,
    );
  }
  const refused = merged.noteRequiredFor.filter((state) => !ITEM_STATES.includes(state) || isActive(state));
  if (refused.length > 0) {
    throw new DomainError(
      'BAD_USER_INPUT',
      `noteRequiredFor may hold only settled states (DONE, FAILED, BLOCKED, DROPPED); ${refused.join(', ')} ` +
        `${refused.length === 1 ? 'is' : 'are'} not. A note is asked for when a step settles, so list only those.`,
    );
  }
  return merged;
}

/** One step of a plan, as it is checked, rendered and summed up. */
export interface PlanStep {
  text: string;
  state: ItemState;
  /** The validation or reason given with the latest state change. */
  note: string | null;
  /** Added after the plan was first written, so the reader sees the plan grew. */
  added: boolean;
}

/**
 * Checks a whole plan about to be recorded against `rules`. Per step, in
 * order: text non-empty once trimmed (EMPTY_TEXT), no [[#id]] token
 * (REF_IN_LABEL), at most maxTextLength characters (TEXT_TOO_LONG), not the
 * same text as an earlier step (DUPLICATE_TEXT). Then the size
 * (PLAN_SIZE) and, with oneActive, at most one IN_PROGRESS
 * (TOO_MANY_IN_PROGRESS). The writeTodos messages are the ones clients of the
 * to-do tool already match on.
 */
export function checkPlan(steps: readonly PlanStep[], rules: PlanRules): void {
  const seen = new Set<string>();
  steps.forEach((step, index) => {
    const text = checkStepText(step.text, index + 1, rules);
    if (seen.has(text)) throw new DomainError('DUPLICATE_TEXT', `invalid todos: duplicate content "${text}"`);
    seen.add(text);
  });

  checkPlanSize(steps.length, rules);

  if (rules.oneActive) {
    const active = steps.filter((step) => step.state === 'IN_PROGRESS').length;
    if (active > 1) {
      throw new DomainError('TOO_MANY_IN_PROGRESS', `invalid todos: at most one task may be in_progress (got ${active})`);
    }
  }
}

/**
 * One step's text as it is about to be recorded as step `n`: trimmed, then
 * EMPTY_TEXT, REF_IN_LABEL or TEXT_TOO_LONG (over rules.maxTextLength).
 * Returns the trimmed text.
 */
export function checkStepText(raw: string, n: number, rules: PlanRules): string {
  const text = raw.trim();
  if (text === '') throw new DomainError('EMPTY_TEXT', 'invalid todo: `content` must be a non-empty string');
  if (hasRefToken(text)) {
    throw new DomainError(
      'REF_IN_LABEL',
      `step ${n} "${text}" carries an [[#id]] token, and a step's text never may. Write it in plain words.`,
    );
  }
  const length = textLength(text);
  if (length > rules.maxTextLength) {
    throw new DomainError(
      'TEXT_TOO_LONG',
      `step ${n} is ${length} characters; this session's plans allow at most ${rules.maxTextLength}. ` +
        `Shorten it to a label; the detail belongs in the work and in the note you give when it settles.`,
    );
  }
  return text;
}

/**
 * A change of a plan from `from` to `to` steps: growing can break maxItems
 * only, shrinking minItems only, so a plan recorded outside newer rules may
 * always move toward them.
 */
export function checkPlanResize(from: number, to: number, rules: PlanRules): void {
  if ((to > from && to > rules.maxItems) || (to < from && to < rules.minItems)) checkPlanSize(to, rules);
}

/** PLAN_SIZE unless a plan of `count` steps is within minItems..maxItems. */
export function checkPlanSize(count: number, rules: PlanRules): void {
  const { minItems, maxItems } = rules;
  if (count >= minItems && count <= maxItems) return;
  const advice =
    count > maxItems
      ? 'Group the small steps: each should be something you can report on.'
      : 'Split the work into steps you can report on one by one.';
  throw new DomainError(
    'PLAN_SIZE',
    `the plan would have ${countOf(count, 'step')}; this session's rules allow ${minItems} to ${maxItems}. ${advice}`,
  );
}

/** What a note on each settled state should say. */
const NOTE_ASKS: Record<ItemState, string> = {
  DONE: 'what you checked and what it showed, e.g. "ran npm test: 38 passed"',
  FAILED: 'what you checked and what it showed, e.g. "ssh timed out after 60s; host unreachable"',
  BLOCKED: 'why: what it is waiting for',
  DROPPED: 'why it was decided against',
  PENDING: 'why',
  IN_PROGRESS: 'why',
};

/**
 * updateStep: NOTE_REQUIRED when `state` is in rules.noteRequiredFor and the
 * note is empty once trimmed. The note is the record of what was verified,
 * so "done" cannot quietly mean "moved on".
 */
export function checkStepNote(state: ItemState, note: string | null | undefined, rules: PlanRules): void {
  if (!rules.noteRequiredFor.includes(state)) return;
  if ((note ?? '').trim() !== '') return;
  throw new DomainError(
    'NOTE_REQUIRED',
    `marking a step ${state} needs a note saying ${NOTE_ASKS[state]}. Send the update again with that note.`,
  );
}

/**
 * Turns a 1-based step (as the rendered plan numbers it) into a 0-based
 * index; STEP_OUT_OF_RANGE outside 1..length, with the plan's length so the
 * agent can correct itself.
 */
export function stepIndex(step: number, length: number): number {
  if (Number.isInteger(step) && step >= 1 && step <= length) return step - 1;
  const range =
    length === 0
      ? 'the plan has no steps. Add some first (addSteps, setPlan or writeTodos).'
      : `the plan has ${countOf(length, 'step')}; use ${length === 1 ? '1' : `1..${length}`}.`;
  throw new DomainError('STEP_OUT_OF_RANGE', `step ${step} is not in the plan: ${range} Steps are numbered from 1.`);
}

/** "Updated todo list: <pending> pending, <inProgress> in progress, <completed> completed." Counts of the whole list; completed counts DONE only. */
export function planMessage(steps: readonly { state: ItemState }[]): string {
  const count = (state: ItemState) => steps.filter((step) => step.state === state).length;
  return `Updated todo list: ${count('PENDING')} pending, ${count('IN_PROGRESS')} in progress, ${count('DONE')} completed.`;
}

const GLYPHS: Record<ItemState, string> = {
  PENDING: '[ ]',
  IN_PROGRESS: '[~]',
  DONE: '[x]',
  BLOCKED: '[!]',
  DROPPED: '[-]',
  FAILED: '[f]',
};

/**
 * The plan as a checklist, one line per step:
 * "[x] 2. Run the tests - ran npm test, 38 passed", "(added)" on steps added
 * later. An empty plan renders "(no steps)".
 */
export function renderPlan(steps: readonly PlanStep[]): string {
  if (steps.length === 0) return '(no steps)';
  return steps
    .map((step, index) => {
      const note = oneLine(step.note ?? '');
      return (
        `${GLYPHS[step.state]} ${index + 1}. ${oneLine(step.text)}` +
        (note ? ` - ${note}` : '') +
        (step.added ? ' (added)' : '')
      );
    })
    .join('\n');
}

/** A line break inside a note or text would read as another step, so it becomes a space. */
function oneLine(text: string): string {
  return text.trim().replace(/\s*[\r\n]+\s*/g, ' ');
}

/**
 * One line for a session, e.g. "3/7 · installing dependencies": settled count
 * / total, then the step in progress, else the first pending, else
 * "wrapping up"; "planning" before any plan.
 */
export function statusLine(steps: readonly PlanStep[] | null): string {
  if (steps === null) return 'planning';
  const settled = steps.filter((step) => !isActive(step.state)).length;
  const current = steps.find((step) => step.state === 'IN_PROGRESS') ?? steps.find((step) => step.state === 'PENDING');
  return `${settled}/${steps.length} · ${current ? oneLine(current.text) : 'wrapping up'}`;
}

/**
 * finishSession: null when the session may finish; otherwise the PLAN_OPEN
 * refusal text, counting and listing the open steps by number. An unexplained
 * gap is the one outcome not allowed: each open step is either finished or
 * settled with a reason the user can read.
 */
export function whyNotFinished(steps: readonly PlanStep[]): string | null {
  const open = steps.flatMap((step, index) => (isActive(step.state) ? [{ step, n: index + 1 }] : []));
  if (open.length === 0) return null;
  const listed = open.map(({ step, n }) => `  ${n}. ${oneLine(step.text)} (${step.state})`).join('\n');
  return (
    `${open.length} of ${countOf(steps.length, 'step')} ${open.length === 1 ? 'is' : 'are'} still open:\n${listed}\n` +
    `Finish them (updateStep to DONE with a note on what you checked), or mark each one BLOCKED or DROPPED ` +
    `with a note giving the reason. Then call finishSession again.`
  );
}

/** "1 step", "3 steps". */
export function countOf(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
