/**
 * How the plan-and-finish tools show a plan (api/mcp.md): one line a task,
 * its glyph, its id, its text, its note and whether it was added; a status
 * line; and the summary `finish` starts with.
 */
import type { ItemState } from '../domain/states.js';
import { STATE_GLYPHS } from '../domain/plan-rules.js';
import { oneLine } from '../domain/one-line.js';

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

/** A step's status as the plan-and-finish tools name it (done, in_progress, ...); a memory's status is domain/states.ts's taskStatus. */
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

/** "[x] 2. Run the tests - ran npm test: 38 passed (added mid-session)", one line a task. */
export function renderChecklist(all: readonly ChecklistItem[]): string {
  const tasks = numberedTasks(all);
  if (tasks.length === 0) return '(no task list yet)';
  return tasks
    .map((task) => `${STATE_GLYPHS[task.state]} ${task.taskId}. ${oneLine(task.text)}${task.note ? ` - ${oneLine(task.note)}` : ''}${task.added ? ' (added mid-session)' : ''}`)
    .join('\n');
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
