/**
 * How each plan tool set shows a plan to its agent, word for word: the
 * plan-and-finish table (glyph, id, text, note, "(added mid-session)"), the
 * step-ops list, and the whole-list statuses. Pure text from the plan's
 * items, so the MCP tools and the dashboard render one plan the same way.
 */
import { PRESET_RULES, STATE_GLYPHS, type PlanPreset, type PlanRules } from './plan-rules.js';
import type { ItemState } from './states.js';
import { oneLine } from './one-line.js';

// ---- plan-and-finish ---------------------------------------------------------

/** A plan step as the checklist needs it. */
export interface ChecklistItem {
  id: number;
  text: string;
  state: ItemState;
  note: string | null;
  added: boolean;
  deleted: boolean;
}

/** The task statuses of this set and the item states they are (pending puts a task back, as the reference allows). */
export const TASK_STATUSES = {
  pending: 'PENDING', in_progress: 'IN_PROGRESS', done: 'DONE', blocked: 'BLOCKED', dropped: 'DROPPED',
} as const satisfies Record<string, ItemState>;

/** What the summary reads for a session that never wrote a list, as the reference's does. */
export const NO_LIST_SUMMARY = 'No task list was written.';

/** The summary's order of statuses. */
const SUMMARY_ORDER: readonly ItemState[] = ['DONE', 'BLOCKED', 'DROPPED', 'FAILED', 'IN_PROGRESS', 'PENDING'];

/** A step's status as the plan-and-finish tools name it (done, in_progress, ...); a memory's status is states.ts's taskStatus. */
export function checklistStatus(state: ItemState): string {
  return state.toLowerCase();
}

/**
 * Task ids: a task's place in the order its steps were first written or
 * added, which item ids (global, increasing, never reused) already give. So
 * an insertion moves no id, and a deleted task's id is not handed out again.
 */
export function taskIds(all: readonly ChecklistItem[]): Map<number, number> {
  const byCreation = [...all].sort((a, b) => a.id - b.id);
  return new Map(byCreation.map((item, index) => [item.id, index + 1]));
}

/** The live tasks, in list order, each with its task id. */
export function numberedTasks(all: readonly ChecklistItem[]): (ChecklistItem & { taskId: number })[] {
  const ids = taskIds(all);
  return all.filter((item) => !item.deleted).map((item) => ({ ...item, taskId: ids.get(item.id)! }));
}

/** One task's line: "[x] 2. Run the tests - ran npm test: 38 passed (added mid-session)". */
export function checklistLine(task: ChecklistItem & { taskId: number }): string {
  return `${STATE_GLYPHS[task.state]} ${task.taskId}. ${oneLine(task.text)}${task.note ? ` - ${oneLine(task.note)}` : ''}${task.added ? ' (added mid-session)' : ''}`;
}

/** The whole table, one line a task, from every item of the plan (deleted ones too: they keep their ids). */
export function renderChecklist(all: readonly ChecklistItem[]): string {
  const tasks = numberedTasks(all);
  if (tasks.length === 0) return '(no task list yet)';
  return tasks.map(checklistLine).join('\n');
}

/** "7 tasks: 5 done, 1 blocked, 1 dropped." — zero counts left out; "No task list was written." with no list. */
export function summaryLine(all: readonly ChecklistItem[] | null): string {
  if (all === null) return NO_LIST_SUMMARY;
  const tasks = numberedTasks(all);
  const parts = SUMMARY_ORDER.flatMap((state) => {
    const count = tasks.filter((task) => task.state === state).length;
    return count ? [`${count} ${checklistStatus(state)}`] : [];
  });
  return `${tasks.length} task${tasks.length === 1 ? '' : 's'}: ${parts.join(', ')}.`;
}

/** finish's refusal while tasks are open: counts and lists them, and says what to do. */
export function openTasksText(all: readonly ChecklistItem[]): string | null {
  const tasks = numberedTasks(all);
  const open = tasks.filter((task) => task.state === 'PENDING' || task.state === 'IN_PROGRESS');
  if (open.length === 0) return null;
  const listed = open.map((task) => `  ${task.taskId}. ${oneLine(task.text)} (${checklistStatus(task.state)})`).join('\n');
  return (
    `${open.length} of ${tasks.length} tasks ${open.length === 1 ? 'is' : 'are'} still open:\n${listed}\n` +
    'Finish each one (update_task with done), or mark it blocked or dropped with the reason in note. ' +
    'Leaving a gap unexplained is the one ending not allowed: the user must see what was not done, and why.'
  );
}

// ---- step-ops ----------------------------------------------------------------

/** A step as the step-ops list needs it. */
export interface StepLine {
  text: string;
  state: ItemState;
  note: string | null;
  added: boolean;
}

/** The five step-ops statuses and the item states they are. */
export const STEP_STATUSES = {
  pending: 'PENDING',
  in_progress: 'IN_PROGRESS',
  done: 'DONE',
  failed: 'FAILED',
  dropped: 'DROPPED',
} as const satisfies Record<string, ItemState>;

/** What view answers before any plan, word for word (agents match on it). */
export const NO_PLAN_TEXT = 'No plan set for this session.';

/** An item state as step-ops names it (BLOCKED, set elsewhere, reads "blocked"). */
export function stepOpsStatus(state: ItemState): string {
  return state.toLowerCase();
}

/** "1 step", "3 steps". */
export function stepsCount(n: number): string {
  return `${n} step${n === 1 ? '' : 's'}`;
}

/**
 * The counts line of every answer that changes the plan, in this tool's
 * statuses: all five, so a failed or dropped step is never out of the sum
 * ("4 steps: 1 pending, 1 in_progress, 1 done, 1 failed, 0 dropped."); a
 * blocked step, set elsewhere, is counted when there is one.
 */
export function stepCounts(steps: readonly { state: ItemState }[]): string {
  const states: ItemState[] = [...Object.values(STEP_STATUSES), ...(steps.some((step) => step.state === 'BLOCKED') ? (['BLOCKED'] as const) : [])];
  const parts = states.map((state) => `${steps.filter((step) => step.state === state).length} ${stepOpsStatus(state)}`);
  return `${stepsCount(steps.length)}: ${parts.join(', ')}.`;
}

/** One step's line, numbered by its place: "2. [done] Run the tests — validation: ran npm test: 38 passed". */
export function stepLine(step: StepLine, index: number): string {
  const validation = step.note ? ` — validation: ${oneLine(step.note)}` : '';
  return `${index + 1}. [${stepOpsStatus(step.state)}] ${step.text}${validation}${step.added ? ' (added)' : ''}`;
}

/** The plan's live steps, one line a step. */
export function renderSteps(steps: readonly StepLine[]): string {
  if (steps.length === 0) return '(the plan has no steps)';
  return steps.map(stepLine).join('\n');
}

// ---- whole-list --------------------------------------------------------------

/** The whole-list statuses and the item states they are. */
export const WHOLE_LIST_STATUSES = { pending: 'PENDING', in_progress: 'IN_PROGRESS', completed: 'DONE' } as const satisfies Record<string, ItemState>;

/** An item state as the whole-list tool names it (a state set elsewhere, e.g. BLOCKED from the dashboard, reads lower-case). */
export function wholeListStatus(state: ItemState): string {
  const found = (Object.keys(WHOLE_LIST_STATUSES) as (keyof typeof WHOLE_LIST_STATUSES)[]).find((status) => WHOLE_LIST_STATUSES[status] === state);
  return found ?? state.toLowerCase();
}

// ---- which set, in which words -------------------------------------------------

/**
 * The preset whose rules these match best (ties go to WHOLE_LIST, the
 * default): rules changed a field or two still read as the set they started
 * from. startSession records it for rules sent without a preset, and
 * Session.preset reads it for a session stored before its preset was kept.
 */
export function presetOfRules(rules: Partial<PlanRules>): PlanPreset {
  const score = (preset: PlanPreset) => {
    const wanted = PRESET_RULES[preset];
    return (Object.keys(wanted) as (keyof PlanRules)[]).filter((field) => {
      const have = rules[field];
      if (have === undefined) return false;
      return Array.isArray(have) ? [...have].sort().join() === [...(wanted[field] as ItemState[])].sort().join() : have === wanted[field];
    }).length;
  };
  const ranked: PlanPreset[] = ['WHOLE_LIST', 'STEP_OPS', 'PLAN_AND_FINISH'];
  return ranked.reduce((best, preset) => (score(preset) > score(best) ? preset : best));
}

/**
 * Item states in each set's words, as its agent and its chat read them:
 * whole-list's chat says Pending / In progress / Completed; step-ops and
 * plan-and-finish name their statuses as their tools take them.
 */
export const PLAN_STATE_WORDS: Readonly<Record<PlanPreset, Readonly<Record<ItemState, string>>>> = {
  WHOLE_LIST: { PENDING: 'Pending', IN_PROGRESS: 'In progress', DONE: 'Completed', DROPPED: 'Dropped', BLOCKED: 'Blocked', FAILED: 'Failed' },
  STEP_OPS: { PENDING: 'pending', IN_PROGRESS: 'in_progress', DONE: 'done', DROPPED: 'dropped', BLOCKED: 'blocked', FAILED: 'failed' },
  PLAN_AND_FINISH: { PENDING: 'pending', IN_PROGRESS: 'in_progress', DONE: 'done', DROPPED: 'dropped', BLOCKED: 'blocked', FAILED: 'failed' },
};
