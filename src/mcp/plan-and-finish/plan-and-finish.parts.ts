import { z } from 'zod';
import type { DomainError } from '../../domain/errors.js';
import { PRESET_RULES, statusLine } from '../../domain/plan-rules.js';
import type { ItemState } from '../../domain/states.js';
import { NO_LIST_SUMMARY, openTasksText, numberedTasks, renderChecklist, TASK_STATUSES, checklistStatus } from '../../domain/plan-render.js';
import { readPlan, requireSessionId, type PlanView } from '../common/plan-view.js';
import { requireWrite, type ToolContext } from '../common/tool-context.js';
import { answer, guarded } from '../common/tool-result.js';

export const TASK = z.object({ id: z.number().int(), text: z.string(), status: z.string(), note: z.string().nullable(), added: z.boolean() });
export const OUTPUT = {
  sessionId: z.string(),
  statusLine: z.string().describe('closed/total · the task in progress (else the next pending, else "wrapping up").'),
  tasks: z.array(TASK).describe('The whole list, in order; ids never change.'),
};

/** What every answer of this set carries: the list rendered, and the list as data with its status line. */
export function reply(sessionId: string, lead: string | null, plan: PlanView | null) {
  const all = plan?.all ?? [];
  const rendered = renderChecklist(all);
  const tasks = numberedTasks(all);
  return answer(lead ? `${lead}\n\n${rendered}` : rendered, {
    sessionId,
    statusLine: statusLine(plan ? plan.steps : null),
    tasks: tasks.map((task) => ({ id: task.taskId, text: task.text, status: checklistStatus(task.state), note: task.note, added: task.added })),
  });
}

/** The item id behind a task id (its place in creation order); null when the list has no such task. */
export function itemOfTask(plan: PlanView, taskId: number): string | null {
  const task = numberedTasks(plan.all).find((candidate) => candidate.taskId === taskId);
  return task ? String(task.id) : null;
}

/** The preset's limits, as the descriptions state them: the rules table's, which the services enforce (refusals give the session's own from their details). */
export const { minItems, maxItems, maxTextLength, maxNoteLength } = PRESET_RULES.PLAN_AND_FINISH;

export const NOTHING_WRITTEN = 'call plan_tasks first: nothing has been written down yet.';

/** The statuses update_task takes, as its refusals list them. */
export const STATUS_WORDS = `${Object.keys(TASK_STATUSES).slice(0, -1).join(', ')} or ${Object.keys(TASK_STATUSES).at(-1)}`;

/** Which tool made the call, so a refusal names the task by what the agent sent: a place in plan_tasks' list is its id; add_task's new task has none yet. */
export type Verb = 'plan_tasks' | 'update_task' | 'add_task' | 'finish';

// Every tool of this set records, so a read-only connection is refused before anything else.
export const run = (ctx: ToolContext, verb: Verb, work: (sessionId: string) => Promise<ReturnType<typeof reply>>) =>
  guarded(ctx.logger, async () => {
    requireWrite(ctx);
    return work(await requireSessionId(ctx));
  }, (error) => translate(ctx, verb, error));

/**
 * The service's refusals in this set's words: tasks, their ids, its four
 * verbs and its five statuses. Each is worded from the refusal's details and
 * the list as it stands, never from the service's message.
 */
export async function translate(ctx: ToolContext, verb: Verb, error: DomainError): Promise<string | null> {
  const sessionId = await ctx.session.id();
  const plan = sessionId ? await readPlan(ctx, sessionId).catch(() => null) : null;
  const list = plan ? `\n\n${renderChecklist(plan.all)}` : '';
  const { details } = error;
  switch (error.code) {
    case 'PLAN_LOCKED':
      return `the task list has already been written. Use update_task to change a task's status, or add_task if the work turned out to need a task you did not plan.${list}`;
    case 'PLAN_SIZE': {
      const limit = details.limit ?? 0;
      if (verb === 'add_task') return `there are already ${details.current ?? limit} tasks, the most this list may hold (${limit}). Finish or drop one before adding another.${list}`;
      const sent = details.count ?? 0;
      return sent < limit
        ? `give at least ${limit} tasks (got ${sent}). If the work really is one step, say so as two: what to do, and how you will check it.`
        : `${sent} tasks is too many; the limit is ${limit}. Group the small steps: each task should be something you could report on, not every command you expect to type.`;
    }
    case 'TEXT_TOO_LONG': {
      const which = verb === 'add_task' ? 'the new task' : `task ${details.step}`;
      return `${which} is ${details.count} characters; keep each task to ${details.limit}. Put the detail in the work, not the title.`;
    }
    case 'EMPTY_TEXT':
      return 'a task needs some text.';
    case 'NOTE_REQUIRED':
      return `marking a task ${checklistStatus((details.state ?? 'BLOCKED') as ItemState)} needs a reason in note: say in one sentence what stopped you. It is what the user reads when the work comes back unfinished.${list}`;
    case 'TOO_MANY_IN_PROGRESS': {
      const busy = plan && details.otherStep ? numberedTasks(plan.all)[details.otherStep - 1] : undefined;
      return `one task at a time: ${busy ? `task ${busy.taskId} is` : 'another task is'} already in_progress. Mark it done, blocked or dropped (with the reason) before you start another.${list}`;
    }
    case 'NO_PLAN':
      return plan || verb !== 'finish'
        ? NOTHING_WRITTEN
        : `${NO_LIST_SUMMARY} There is no task list, so there is nothing to finish against. Call plan_tasks first and say what you intend to do.`;
    case 'PLAN_OPEN':
      return plan ? `${openTasksText(plan.all) ?? 'some tasks are still open.'}${list}` : null;
    default:
      return null;
  }
}
