import { z } from 'zod';
import type { DomainError } from '../domain/errors.js';
import { statusLine } from '../domain/plan-rules.js';
import type { ItemState } from '../domain/states.js';
import { openTasksText, numberedTasks, renderChecklist, summaryLine, TASK_STATUSES, taskStatus } from './checklist.render.js';
import { readPlan, requireSessionId, type PlanView } from './plan-view.js';
import { callerOf, requireWrite, type ToolContext } from './tool-context.js';
import type { ToolRegistrar } from './tool-registry.js';
import { answer, guarded, ToolRefusal } from './tool-result.js';

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
    tasks: tasks.map((task) => ({ id: task.taskId, text: task.text, status: taskStatus(task.state), note: task.note, added: task.added })),
  });
}

/** The item id behind a task id (its place in creation order); null when the list has no such task. */
function itemOfTask(plan: PlanView, taskId: number): string | null {
  const task = numberedTasks(plan.all).find((candidate) => candidate.taskId === taskId);
  return task ? String(task.id) : null;
}

const NOTHING_WRITTEN = 'call plan_tasks first: nothing has been written down yet.';

/** plan-and-finish: plan_tasks, update_task, add_task and finish (api/mcp.md). */
export function registerPlanAndFinishTools(tools: ToolRegistrar): void {
  // Every tool of this set records, so a read-only connection is refused before anything else.
  const run = (ctx: ToolContext, work: (sessionId: string) => Promise<ReturnType<typeof reply>>) =>
    guarded(ctx.logger, async () => {
      requireWrite(ctx);
      return work(await requireSessionId(ctx));
    }, (error) => translate(ctx, error));

  tools.registerTool(
    'plan_tasks',
    {
      title: 'Write down the plan',
      description: `Before you start, write down what you intend to do: 2 to 20 tasks, each something you could report on, at most 160 characters. The list is written once; afterwards use update_task to move a task and add_task for work you did not plan. You cannot finish until every task is done, blocked or dropped.
Example: {"tasks": ["Reproduce the crash with the failing input", "Fix the parser", "Run the test suite and read its output"]}`,
      inputSchema: { tasks: z.array(z.string()).describe('The tasks in order; blank entries are skipped.') },
      outputSchema: OUTPUT,
    },
    async ({ tasks }, ctx) =>
      run(ctx, async (sessionId) => {
        requireWrite(ctx);
        const texts = tasks.map((text) => text.trim()).filter(Boolean);
        await ctx.services.plans.setPlan(await callerOf(ctx), texts);
        return reply(sessionId, null, await readPlan(ctx, sessionId));
      }),
  );

  tools.registerTool(
    'update_task',
    {
      title: 'Move a task',
      description: `Change one task's status by its id (the number the list shows): in_progress when you start it, done when it is finished, blocked or dropped with a note saying why (the reason is what the user reads). Notes are kept to their first 400 characters.
Example: {"task_id": 2, "status": "blocked", "note": "The staging database is down; asked ops in #infra."}`,
      inputSchema: {
        task_id: z.number().int().describe('The task id, as the list shows it.'),
        status: z.string().describe('in_progress, done, blocked or dropped.'),
        note: z.string().optional().describe('What you checked, or why it is blocked or dropped (needed for those two).'),
      },
      outputSchema: OUTPUT,
    },
    async ({ task_id, status, note }, ctx) =>
      run(ctx, async (sessionId) => {
        const plan = await readPlan(ctx, sessionId);
        if (!plan) throw new ToolRefusal(NOTHING_WRITTEN);
        const id = itemOfTask(plan, task_id);
        if (!id) {
          const known = numberedTasks(plan.all).map((task) => task.taskId).join(', ');
          throw new ToolRefusal(`there is no task ${task_id}. The tasks are: ${known}.\n\n${renderChecklist(plan.all)}`);
        }
        const state = TASK_STATUSES[status as keyof typeof TASK_STATUSES] as ItemState | undefined;
        if (!state) throw new ToolRefusal(`"${status}" is not a task status. Use in_progress, done, blocked or dropped.`);
        requireWrite(ctx);
        await ctx.services.plans.updateStep(await callerOf(ctx), { id, state, note: note ?? null });
        return reply(sessionId, null, await readPlan(ctx, sessionId));
      }),
  );

  tools.registerTool(
    'add_task',
    {
      title: 'Add a task you did not plan',
      description: `Add a task the work turned out to need, after the task after_id (at the end when it is left out or names no task). At most 20 tasks in all; the new task is marked "(added mid-session)" so the final list shows the plan grew.
Example: {"text": "Add a regression test for the empty input", "after_id": 2}`,
      inputSchema: {
        text: z.string().describe('The task, at most 160 characters.'),
        after_id: z.number().int().optional().describe('Insert after this task id.'),
      },
      outputSchema: OUTPUT,
    },
    async ({ text, after_id }, ctx) =>
      run(ctx, async (sessionId) => {
        const plan = await readPlan(ctx, sessionId);
        if (!plan) throw new ToolRefusal(NOTHING_WRITTEN);
        if (!text.trim()) throw new ToolRefusal('a task needs some text.');
        requireWrite(ctx);
        const after = after_id === undefined ? null : itemOfTask(plan, after_id);
        await ctx.services.plans.addSteps(await callerOf(ctx), [text], after);
        return reply(sessionId, null, await readPlan(ctx, sessionId));
      }),
  );

  tools.registerTool(
    'finish',
    {
      title: 'Finish',
      description: `Call when you are done. Refused while any task is pending or in progress: finish each one, or mark it blocked or dropped with the reason. Once accepted, answers with the summary ("7 tasks: 5 done, 1 blocked, 1 dropped.") and the final list.
Example: {}`,
      inputSchema: {},
      outputSchema: { ...OUTPUT, summary: z.string() },
    },
    async (_args, ctx) =>
      run(ctx, async (sessionId) => {
        requireWrite(ctx);
        await ctx.services.sessions.finishSession(await callerOf(ctx));
        const plan = await readPlan(ctx, sessionId);
        const summary = summaryLine(plan?.all ?? []);
        const result = reply(sessionId, summary, plan);
        return { ...result, structuredContent: { ...result.structuredContent, summary } };
      }),
  );
}

/** The service's refusals in this set's words: tasks, their ids, and its four verbs. */
async function translate(ctx: ToolContext, error: DomainError): Promise<string | null> {
  const sessionId = await ctx.session.id();
  const plan = sessionId ? await readPlan(ctx, sessionId).catch(() => null) : null;
  const list = plan ? `\n\n${renderChecklist(plan.all)}` : '';
  const rules = plan?.session.rules;
  switch (error.code) {
    case 'PLAN_LOCKED':
      return `the list is written once, and it already is. Move a task with update_task, or add one the work turned out to need with add_task.${list}`;
    case 'PLAN_SIZE': {
      if (plan) return `there are already ${plan.steps.length} tasks, the most this list may hold. Finish or drop one before adding another.${list}`;
      const [session] = sessionId ? await ctx.services.sessionReader.sessionsByIds([sessionId]) : [null];
      const sent = Number(/would have (\d+)/.exec(error.message)?.[1] ?? 0);
      const { minItems, maxItems } = session?.rules ?? { minItems: 2, maxItems: 20 };
      return sent < minItems
        ? `give at least ${minItems} tasks (got ${sent}). If the work really is one step, write it as two: doing it, and how you will check it.`
        : `${sent} tasks is too many; the limit is ${maxItems}. Group the small steps: each task should be something you could report on.`;
    }
    case 'TEXT_TOO_LONG':
      return `${error.message.replace(/^step (\d+)/, 'task $1').replace('plans allow', 'tasks allow')}`.replace(/Shorten it.*$/, `Keep each task to ${rules?.maxTextLength ?? 160} characters; the detail belongs in the work.`);
    case 'NOTE_REQUIRED': {
      const state = /marking a step (\w+)/.exec(error.message)?.[1] ?? 'BLOCKED';
      return `marking a task ${taskStatus(state as ItemState)} needs a reason in note: say in one sentence what stopped you. It is what the user reads when the work comes back unfinished.${list}`;
    }
    case 'NO_PLAN':
      return plan ? NOTHING_WRITTEN : 'no task list has been written, so there is nothing to finish against. Call plan_tasks first and say what you intend to do.';
    case 'PLAN_OPEN':
      return plan ? `${openTasksText(plan.all) ?? error.message}${list}` : error.message;
    case 'DUPLICATE_TEXT':
      return `${error.message.replace('invalid todos: duplicate content', 'the same task twice:')}${list}`;
    default:
      return null;
  }
}
