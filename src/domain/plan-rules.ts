/**
 * A session's plan rules, and how a plan reads back to the agent that wrote it.
 *
 * A plan is the agent's own statement of what it intends to do; the rules make
 * it a standard the agent can be held to (a settled step says what was checked
 * or why, and the session cannot finish while a step is still open).
 */
import { DomainError } from './errors.js';
import { oneLine } from './one-line.js';
import { cleanStepText, textLength } from './text-rules.js';
import { ITEM_STATES, isActive, type ItemState } from './states.js';

export interface PlanRules {
  /** At most one step IN_PROGRESS at a time. */
  oneActive: boolean;
  /** States that need a note when a step is moved into them. */
  noteRequiredFor: ItemState[];
  minItems: number;
  maxItems: number;
  maxTextLength: number;
  /** A note longer than this is kept to its first maxNoteLength characters. */
  maxNoteLength: number;
  /** Once the plan is first written, the session may add steps and move them, never rewrite, rename, reorder, delete or clear them. */
  planOnce: boolean;
}

/** The rules of the three agent to-do tools (../reference/), a session's starting point. */
export const PLAN_PRESETS = ['WHOLE_LIST', 'STEP_OPS', 'PLAN_AND_FINISH'] as const;
export type PlanPreset = (typeof PLAN_PRESETS)[number];

/** A change of some rules; a field left out or null keeps its value. */
export type PlanRulesChange = { [K in keyof PlanRules]?: PlanRules[K] | null };

/**
 * The largest plan any rules may allow: the presets' most (200 steps). A plan
 * is written whole (writeTodos, setPlan) in one call, so a plan call may send
 * up to the session's maxItems steps, its size judged before any text is
 * read; the history of a rewrite is bounded by it (graphql/execution/query-cost.ts).
 */
export const MAX_ITEMS_CEILING = 200;
export const MAX_TEXT_CEILING = 1000;
/** The longest free text anywhere (errors.md "Limits"), so the longest note any rules may keep. */
const MAX_NOTE_CEILING = 20_000;

/** Frozen rules: shared by every session, so a caller that mutated them would change the rules of all the others. */
function frozenRules(rules: PlanRules): PlanRules {
  return Object.freeze({ ...rules, noteRequiredFor: Object.freeze([...rules.noteRequiredFor]) as ItemState[] });
}

/**
 * Each preset's rules (errors.md "Session plans"): the whole list asks for no
 * notes; step operations ask what was checked for DONE; plan-and-finish is
 * written once, 2 to 20 steps of at most 160 characters, and asks the reason
 * for BLOCKED and DROPPED, kept to 400 characters. The first two references
 * set no bound of their own, so theirs (200 steps of 500 characters) only
 * stops hostile input: no real list meets it.
 */
export const PRESET_RULES: Readonly<Record<PlanPreset, PlanRules>> = Object.freeze({
  WHOLE_LIST: frozenRules({ oneActive: false, noteRequiredFor: [], minItems: 0, maxItems: 200, maxTextLength: 500, maxNoteLength: MAX_NOTE_CEILING, planOnce: false }),
  STEP_OPS: frozenRules({ oneActive: false, noteRequiredFor: ['DONE'], minItems: 0, maxItems: 200, maxTextLength: 500, maxNoteLength: MAX_NOTE_CEILING, planOnce: false }),
  PLAN_AND_FINISH: frozenRules({ oneActive: false, noteRequiredFor: ['BLOCKED', 'DROPPED'], minItems: 2, maxItems: 20, maxTextLength: 160, maxNoteLength: 400, planOnce: true }),
});

/** Rules of a session started without a preset: WHOLE_LIST's. */
export const DEFAULT_PLAN_RULES: PlanRules = PRESET_RULES.WHOLE_LIST;

/**
 * Rules as stored, with any field a session recorded before the field existed
 * filled from the defaults (so older sessions read as WHOLE_LIST there).
 */
export function withRuleDefaults(stored: Partial<PlanRules>): PlanRules {
  return { ...DEFAULT_PLAN_RULES, ...stored, noteRequiredFor: [...(stored.noteRequiredFor ?? DEFAULT_PLAN_RULES.noteRequiredFor)] };
}

/** A session's starting rules: the preset's (WHOLE_LIST when none), then the rules given beside it, field by field. */
export function startingRules(preset: PlanPreset | null | undefined, change: PlanRulesChange | null | undefined): PlanRules {
  return mergePlanRules(PRESET_RULES[preset ?? 'WHOLE_LIST'], change ?? {});
}

/**
 * Merges a partial change onto `base` and validates the result:
 * 0 <= minItems <= maxItems <= 200, 1 <= maxTextLength <= 1000,
 * 1 <= maxNoteLength <= 20,000, and noteRequiredFor (deduplicated, first
 * appearance kept) holds item states (any of them: a session may ask why a
 * step was started, too). A field that is undefined or null keeps its value
 * (GraphQL sends null for "not given"). Refuses with BAD_USER_INPUT. Returns
 * a new object; `base` is not touched.
 */
export function mergePlanRules(base: PlanRules, change: PlanRulesChange): PlanRules {
  const merged: PlanRules = {
    oneActive: change.oneActive ?? base.oneActive,
    noteRequiredFor: [...new Set(change.noteRequiredFor ?? base.noteRequiredFor)],
    minItems: change.minItems ?? base.minItems,
    maxItems: change.maxItems ?? base.maxItems,
    maxTextLength: change.maxTextLength ?? base.maxTextLength,
    maxNoteLength: change.maxNoteLength ?? base.maxNoteLength,
    planOnce: change.planOnce ?? base.planOnce,
  };
  const { minItems, maxItems, maxTextLength, maxNoteLength } = merged;
  if (![minItems, maxItems].every(Number.isInteger) || minItems < 0 || minItems > maxItems || maxItems > MAX_ITEMS_CEILING) {
    throw new DomainError(
      'BAD_USER_INPUT',
      `plan size rules must be whole numbers with 0 <= minItems <= maxItems <= ${MAX_ITEMS_CEILING}; ` +
        `these rules would give minItems ${minItems} and maxItems ${maxItems}. Send values in that range.`,
      { minItems, maxItems, limit: MAX_ITEMS_CEILING },
    );
  }
  if (!Number.isInteger(maxTextLength) || maxTextLength < 1 || maxTextLength > MAX_TEXT_CEILING) {
    throw new DomainError(
      'BAD_USER_INPUT',
      `maxTextLength must be a whole number from 1 to ${MAX_TEXT_CEILING} (got ${maxTextLength}).`,
      { field: 'maxTextLength', count: maxTextLength, limit: MAX_TEXT_CEILING },
    );
  }
  if (!Number.isInteger(maxNoteLength) || maxNoteLength < 1 || maxNoteLength > MAX_NOTE_CEILING) {
    throw new DomainError(
      'BAD_USER_INPUT',
      `maxNoteLength must be a whole number from 1 to ${MAX_NOTE_CEILING} (got ${maxNoteLength}).`,
      { field: 'maxNoteLength', count: maxNoteLength, limit: MAX_NOTE_CEILING },
    );
  }
  const refused = merged.noteRequiredFor.filter((state) => !ITEM_STATES.includes(state));
  if (refused.length > 0) {
    throw new DomainError(
      'BAD_USER_INPUT',
      `noteRequiredFor may hold only item states (${ITEM_STATES.join(', ')}); ${refused.join(', ')} ${refused.length === 1 ? 'is' : 'are'} not.`,
      { field: 'noteRequiredFor', states: refused },
    );
  }
  return merged;
}

/**
 * setPlanRules under planOnce: the session cannot loosen the rules that hold
 * it to its own plan (turn planOnce off, or stop a state needing its note),
 * or the checklist could be skipped by changing the checklist's rules.
 * PLAN_LOCKED; tightening them is accepted.
 */
export function checkRulesChange(current: PlanRules, next: PlanRules): void {
  if (!current.planOnce) return;
  const dropped = current.noteRequiredFor.filter((state) => !next.noteRequiredFor.includes(state));
  if (next.planOnce && dropped.length === 0) return;
  const what = next.planOnce ? `stop ${dropped.join(', ')} needing a note` : 'turn planOnce off';
  throw new DomainError(
    'PLAN_LOCKED',
    `this session's plan is written once and held to its rules, so setPlanRules may not ${what}. ` +
      'Work the plan with updateStep (with the note its rules ask for) and addSteps.',
    { rewrite: 'rules' },
  );
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
 * Checks a whole plan about to be recorded against `rules`: first that it is
 * not over maxItems (PLAN_SIZE, before any text is read, so an oversized call
 * costs nothing), then per step, in order, text non-empty once trimmed
 * (EMPTY_TEXT) and at most maxTextLength characters (TEXT_TOO_LONG), then
 * minItems (PLAN_SIZE) and, with oneActive, at most one IN_PROGRESS
 * (TOO_MANY_IN_PROGRESS). A step may repeat an earlier
 * one (a re-run after a fix): only the whole list refuses repeats, since it
 * matches items by their text (whole-list.ts planWholeList). The writeTodos
 * messages are the ones clients of the to-do tool already match on.
 */
export function checkPlan(steps: readonly PlanStep[], rules: PlanRules): void {
  if (steps.length > rules.maxItems) checkPlanSize(steps.length, rules);
  steps.forEach((step, index) => checkStepText(step.text, index + 1, rules));
  checkPlanSize(steps.length, rules);

  if (rules.oneActive) {
    const active = steps.filter((step) => step.state === 'IN_PROGRESS').length;
    if (active > 1) {
      throw new DomainError('TOO_MANY_IN_PROGRESS', `invalid todos: at most one task may be in_progress (got ${active})`, { count: active, limit: 1 });
    }
  }
}

/**
 * One step's text as it is about to be recorded as step `n`: its characters
 * (text-rules.ts cleanStepText: NUL, controls, bidi controls refused; NFC,
 * trimmed), then EMPTY_TEXT or TEXT_TOO_LONG (over rules.maxTextLength).
 * A step is plain text the agent wrote for itself: `[[#12]]` in it is not a
 * reference and is kept as written. Returns the text as it is stored.
 */
export function checkStepText(raw: string, n: number, rules: PlanRules): string {
  const text = cleanStepText(raw, `step ${n}`);
  if (text === '') throw new DomainError('EMPTY_TEXT', 'invalid todo: `content` must be a non-empty string', { step: n });
  const length = textLength(text);
  if (length > rules.maxTextLength) {
    throw new DomainError(
      'TEXT_TOO_LONG',
      `step ${n} is ${length} characters; this session's plans allow at most ${rules.maxTextLength}. ` +
        `Shorten it to a label; the detail belongs in the work and in the note you give when it settles.`,
      { step: n, count: length, limit: rules.maxTextLength },
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
  if ((to > from && to > rules.maxItems) || (to < from && to < rules.minItems)) checkPlanSize(to, rules, from);
}

/**
 * PLAN_SIZE unless a plan of `count` steps is within minItems..maxItems.
 * `current` is the plan's length before the call, when it had one; the
 * details carry the limit broken, so each surface can word it.
 */
export function checkPlanSize(count: number, rules: PlanRules, current?: number): void {
  const { minItems, maxItems } = rules;
  if (count >= minItems && count <= maxItems) return;
  const advice =
    count > maxItems
      ? 'Group the small steps: each should be something you can report on.'
      : 'Split the work into steps you can report on one by one.';
  throw new DomainError(
    'PLAN_SIZE',
    `the plan would have ${countOf(count, 'step')}; this session's rules allow ${minItems} to ${maxItems}. ${advice}`,
    { count, limit: count > maxItems ? maxItems : minItems, ...(current === undefined ? {} : { current }) },
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
 * NOTE_REQUIRED when `state` is in rules.noteRequiredFor and the note is
 * empty once trimmed: every mutation that moves a plan step into a new state
 * calls it (updateStep, writeTodos, updateItem). The note is the record of
 * what was verified, so "done" cannot quietly mean "moved on". `step`, when
 * given, names the step in the message.
 */
export function checkStepNote(state: ItemState, note: string | null | undefined, rules: PlanRules, step?: { n: number; text: string }): void {
  if (!rules.noteRequiredFor.includes(state)) return;
  if ((note ?? '').trim() !== '') return;
  throw new DomainError(
    'NOTE_REQUIRED',
    `marking ${step ? `step ${step.n} "${step.text}"` : 'a step'} ${state} needs a note saying ${NOTE_ASKS[state]}. Send the update again with that note.`,
    step ? { state, step: step.n, text: step.text } : { state },
  );
}

/**
 * writeTodos: every entry whose state differs from the state its item has
 * (a new entry has none) is a step moved into that state, so it needs its
 * note as updateStep would (checkStepNote). `previous` is each kept item's
 * recorded state by id; `next` is the list as it will be recorded.
 */
export function checkTodoNotes(
  next: readonly { id: string | null; text: string; state: ItemState; note?: string | null }[],
  previous: ReadonlyMap<string, ItemState>,
  rules: PlanRules,
): void {
  next.forEach((todo, index) => {
    const was = todo.id === null ? undefined : previous.get(todo.id);
    if (was === todo.state) return;
    checkStepNote(todo.state, todo.note, rules, { n: index + 1, text: todo.text });
  });
}

/** A step's note as it is kept: trimmed, then its first maxNoteLength characters; null when empty. */
export function keptNote(note: string | null | undefined, rules: PlanRules): string | null {
  const trimmed = (note ?? '').trim();
  if (trimmed === '') return null;
  return Array.from(trimmed).slice(0, rules.maxNoteLength).join('').trim();
}

/** What the session did that planOnce forbids once the plan is written. */
export type PlanRewrite = 'writeTodos' | 'setPlan' | 'clearPlan' | 'rename' | 'move' | 'delete' | 'restore';

const REWRITE_WORDS: Record<PlanRewrite, string> = {
  writeTodos: 'rewrite it with writeTodos',
  setPlan: 'replace it with setPlan',
  clearPlan: 'clear it',
  rename: 'rename its steps',
  move: 'reorder its steps',
  delete: 'delete its steps',
  restore: 'bring back its deleted steps',
};

/**
 * planOnce: PLAN_LOCKED when the session's plan is already written and the
 * session itself tries to rewrite it. A caller with no session (a person at
 * the dashboard) is not held by it: `bySession` is false for that caller.
 */
export function checkPlanNotLocked(rules: PlanRules, planWritten: boolean, bySession: boolean, rewrite: PlanRewrite): void {
  if (!rules.planOnce || !planWritten || !bySession) return;
  throw new DomainError(
    'PLAN_LOCKED',
    `this session's plan is written once, so the session may not ${REWRITE_WORDS[rewrite]}. ` +
      'Use updateStep to change a step\'s state (with a note where the rules ask for one), or addSteps if the work turned out to need a step you did not plan.',
    { rewrite },
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
  throw new DomainError('STEP_OUT_OF_RANGE', `step ${step} is not in the plan: ${range} Steps are numbered from 1.`, { step, count: length });
}

/** "Updated todo list: <pending> pending, <inProgress> in progress, <completed> completed." Counts of the whole list; completed counts DONE only. */
export function planMessage(steps: readonly { state: ItemState }[]): string {
  const count = (state: ItemState) => steps.filter((step) => step.state === state).length;
  return `Updated todo list: ${count('PENDING')} pending, ${count('IN_PROGRESS')} in progress, ${count('DONE')} completed.`;
}

/** One glyph per state, as every rendered checklist shows it (the plan's rendered text, the plan-and-finish tools). */
export const STATE_GLYPHS: Readonly<Record<ItemState, string>> = {
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
        `${STATE_GLYPHS[step.state]} ${index + 1}. ${oneLine(step.text)}` +
        (note ? ` - ${note}` : '') +
        (step.added ? ' (added)' : '')
      );
    })
    .join('\n');
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
 * statusLine as people steering agents read it (the dashboard's Session.statusLine):
 * a plan with nothing left to do but a BLOCKED or FAILED step is stuck, not
 * "wrapping up", and says on what, e.g. "4/4 · stuck: Deploy to staging (blocked)".
 */
export function statusLineForPeople(steps: readonly PlanStep[] | null): string {
  const open = steps?.some((step) => isActive(step.state)) ?? true;
  const stuck = open ? [] : steps!.filter((step) => step.state === 'BLOCKED' || step.state === 'FAILED');
  if (stuck.length === 0) return statusLine(steps);
  const more = stuck.length > 1 ? ` and ${stuck.length - 1} more` : '';
  return `${steps!.length}/${steps!.length} · stuck: ${oneLine(stuck[0].text)} (${stuck[0].state.toLowerCase()})${more}`;
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
