import { z } from 'zod';
import type { DomainError } from '../../domain/errors.js';
import { PRESET_RULES, statusLine } from '../../domain/plan-rules.js';
import type { ItemState } from '../../domain/states.js';
import { NO_LIST_SUMMARY, openTasksText, numberedTasks, renderChecklist, summaryLine, TASK_STATUSES, checklistStatus } from '../../domain/plan-render.js';
import { planAfter, readPlan, requireSessionId, type PlanView } from '../common/plan-view.js';
import { callerOf, requireWrite, type ToolContext } from '../common/tool-context.js';
import type { ToolRegistrar } from '../common/tool-registry.js';
import { answer, guarded, ToolRefusal } from '../common/tool-result.js';

const TASK = z.object({ id: z.number().int(), text: z.string(), status: z.string(), note: z.string().nullable(), added: z.boolean() });
const OUTPUT = {
  sessionId: z.string(),
  statusLine: z.string().describe('closed/total · the task in progress (else the next pending, else "wrapping up").'),
  tasks: z.array(TASK).describe('The whole list, in order; ids never change.'),
};

/** What every answer of this set carries: the list rendered, and the list as data with its status line. */
function reply(sessionId: string, lead: string | null, plan: PlanView | null) {
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
function itemOfTask(plan: PlanView, taskId: number): string | null {
  const task = numberedTasks(plan.all).find((candidate) => candidate.taskId === taskId);
  return task ? String(task.id) : null;
}

/** The preset's limits, as the descriptions state them: the rules table's, which the services enforce (refusals give the session's own from their details). */
const { minItems, maxItems, maxTextLength, maxNoteLength } = PRESET_RULES.PLAN_AND_FINISH;

const NOTHING_WRITTEN = 'call plan_tasks first: nothing has been written down yet.';

/** The statuses update_task takes, as its refusals list them. */
const STATUS_WORDS = `${Object.keys(TASK_STATUSES).slice(0, -1).join(', ')} or ${Object.keys(TASK_STATUSES).at(-1)}`;

/** Which tool made the call, so a refusal names the task by what the agent sent: a place in plan_tasks' list is its id; add_task's new task has none yet. */
type Verb = 'plan_tasks' | 'update_task' | 'add_task' | 'finish';

/** plan-and-finish: plan_tasks, update_task, add_task and finish (api/mcp.md). */
export function registerPlanAndFinishTools(tools: ToolRegistrar): void {
  // Every tool of this set records, so a read-only connection is refused before anything else.
  const run = (ctx: ToolContext, verb: Verb, work: (sessionId: string) => Promise<ReturnType<typeof reply>>) =>
    guarded(ctx.logger, async () => {
      requireWrite(ctx);
      return work(await requireSessionId(ctx));
    }, (error) => translate(ctx, verb, error));

  tools.registerTool(
    'plan_tasks',
    {
      title: 'Write down the plan',
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
      description: `Before you start, write down what you intend to do: ${minItems} to ${maxItems} tasks, each something you could report on, at most ${maxTextLength} characters. The list is written once; afterwards use update_task to move a task and add_task for work you did not plan. You cannot finish until every task is done, blocked or dropped.
Example: {"tasks": ["Reproduce the crash with the failing input", "Fix the parser", "Run the test suite and read its output"]}`,
      inputSchema: { tasks: z.array(z.string()).describe('The tasks in order; blank entries are skipped.') },
      outputSchema: OUTPUT,
    },
    async ({ tasks }, ctx) =>
      run(ctx, 'plan_tasks', async (sessionId) => {
        const texts = tasks.map((text) => text.trim()).filter(Boolean);
        return reply(sessionId, null, planAfter(await ctx.services.plans.setPlan(await callerOf(ctx), texts)));
      }),
  );

  tools.registerTool(
    'update_task',
    {
      title: 'Move a task',
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
      description: `Change one task's status by its id (the number the list shows): in_progress when you start it, done when it is finished, blocked or dropped with a note saying why (the reason is what the user reads), pending to put it back. Notes are kept to their first ${maxNoteLength} characters.
Example: {"task_id": 2, "status": "blocked", "note": "The staging database is down; asked ops in #infra."}`,
      inputSchema: {
        task_id: z.number().int().describe('The task id, as the list shows it (a number; "3" is read as 3).'),
        status: z.string().describe('pending, in_progress, done, blocked or dropped.'),
        note: z.string().optional().describe('What you checked, or why it is blocked or dropped (needed for those two).'),
      },
      outputSchema: OUTPUT,
    },
    async ({ task_id, status, note }, ctx) =>
      run(ctx, 'update_task', async (sessionId) => {
        const plan = await readPlan(ctx, sessionId);
        if (!plan) throw new ToolRefusal(NOTHING_WRITTEN);
        const id = itemOfTask(plan, task_id);
        if (!id) {
          const known = numberedTasks(plan.all).map((task) => task.taskId).join(', ');
          throw new ToolRefusal(`there is no task ${task_id}. The tasks are: ${known}.\n\n${renderChecklist(plan.all)}`);
        }
        const state = TASK_STATUSES[status as keyof typeof TASK_STATUSES] as ItemState | undefined;
        if (!state) throw new ToolRefusal(`"${status}" is not a task status. Use ${STATUS_WORDS}.`);
        return reply(sessionId, null, planAfter(await ctx.services.plans.updateStep(await callerOf(ctx), { id, state, note: note ?? null })));
      }),
  );

  tools.registerTool(
    'add_task',
    {
      title: 'Add a task you did not plan',
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
      description: `Add a task the work turned out to need, after the task after_id (at the end when it is left out or names no task). At most ${maxItems} tasks in all; the new task is marked "(added mid-session)" so the final list shows the plan grew.
Example: {"text": "Add a regression test for the empty input", "after_id": 2}`,
      inputSchema: {
        text: z.string().describe(`The task, at most ${maxTextLength} characters.`),
        after_id: z.number().int().optional().describe('Insert after this task id (a number; "2" is read as 2).'),
      },
      outputSchema: OUTPUT,
    },
    async ({ text, after_id }, ctx) =>
      run(ctx, 'add_task', async (sessionId) => {
        const plan = await readPlan(ctx, sessionId);
        if (!plan) throw new ToolRefusal(NOTHING_WRITTEN);
        if (!text.trim()) throw new ToolRefusal('a task needs some text.');
        const after = after_id === undefined ? null : itemOfTask(plan, after_id);
        return reply(sessionId, null, planAfter(await ctx.services.plans.addSteps(await callerOf(ctx), [text], after)));
      }),
  );

  tools.registerTool(
    'finish',
    {
      title: 'Finish',
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
      description: `Call when you are done. Refused while any task is pending or in progress: finish each one, or mark it blocked or dropped with the reason. Once accepted, answers with the summary ("7 tasks: 5 done, 1 blocked, 1 dropped.") and the final list.
Example: {}`,
      inputSchema: {},
      outputSchema: { ...OUTPUT, summary: z.string() },
    },
    async (_args, ctx) =>
      run(ctx, 'finish', async (sessionId) => {
        await ctx.services.sessions.finishSession(await callerOf(ctx));
        const plan = await readPlan(ctx, sessionId);
        const summary = summaryLine(plan?.all ?? []);
        const result = reply(sessionId, summary, plan);
        return { ...result, structuredContent: { ...result.structuredContent, summary } };
      }),
  );
}

/**
 * The service's refusals in this set's words: tasks, their ids, its four
 * verbs and its five statuses. Each is worded from the refusal's details and
 * the list as it stands, never from the service's message.
 */
async function translate(ctx: ToolContext, verb: Verb, error: DomainError): Promise<string | null> {
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
