import { z } from 'zod';
import type { DomainError } from '../../../domain/errors.js';
import type { ItemState } from '../../../domain/states.js';
import { WHOLE_LIST_STATUSES as STATUS_STATES, wholeListStatus } from '../../../domain/plan-render.js';
import { undoesSteering } from '../../../domain/steering.js';
import { callerOf, requireWrite } from '../../common/tool-context.js';
import type { ArgumentSlip } from '../../common/tool-arguments.js';
import { defineTool } from '../../common/tool-definition.js';
import { answer, guarded, ToolRefusal } from '../../common/tool-result.js';

type Status = keyof typeof STATUS_STATES;

const DESCRIPTION = `Write your to-do list for this chat, whole. Every call sends the entire list and replaces the previous one: to change one item, send the full list again with that item changed; to drop one, send the list without it. Same text keeps its item. Use it for work with several steps; mark an item in_progress when you start it and completed when it is finished.
Statuses: pending, in_progress, completed.
Example: {"todos": [{"content": "Read the failing test", "status": "completed"}, {"content": "Fix the parser", "status": "in_progress"}, {"content": "Run the whole suite", "status": "pending"}]}
Answers "Updated todo list: 1 pending, 1 in progress, 1 completed."; a refusal starts with "Error: " and records nothing.`;

const STATUS_WORDS = Object.keys(STATUS_STATES).join(', ');

/** A todo's missing or mistyped field in the words of the tool's own refusals ("invalid todo: `content` must be ..."). */
function todoSlip({ path, got }: ArgumentSlip): string | null {
  const [top, index, field] = path;
  if (top !== 'todos') return null;
  if (path.length === 1) return 'invalid todos: `todos` must be a list of {content, status}, the entire list in order.';
  if (field === 'content') return 'invalid todo: `content` must be a non-empty string';
  if (field === 'status') {
    const sent = got === undefined ? `todo ${Number(index) + 1} has none` : `got ${JSON.stringify(got)}`;
    return `invalid todo: \`status\` must be one of ${STATUS_WORDS} (${sent})`;
  }
  return `invalid todos: todo ${Number(index) + 1} must be an object with content and status`;
}

/** The service's refusals that are not the reference's own, in this tool's words (todos, their content and statuses). */
function translate(error: DomainError): string | null {
  const { details } = error;
  switch (error.code) {
    case 'PLAN_SIZE':
      return `invalid todos: a list holds ${details.count! > details.limit! ? 'at most' : 'at least'} ${details.limit} todos (got ${details.count})`;
    case 'TEXT_TOO_LONG':
      return `invalid todo: \`content\` of todo ${details.step} is ${details.count} characters; keep it to ${details.limit}, a short line`;
    case 'NOTE_REQUIRED':
      return (
        `invalid todo: marking todo ${details.step} "${details.text}" ${wholeListStatus((details.state ?? 'DONE') as ItemState)} needs a reason ` +
        'under this chat\'s rules, and todo_write carries none, so that status cannot be set with this tool'
      );
    case 'PLAN_LOCKED':
      return 'invalid todos: this chat\'s list is written once (its rules say so) and already is, so todo_write may not rewrite it';
    case 'TOO_MANY_IN_PROGRESS':
      return `invalid todos: at most one task may be in_progress (got ${details.count})`;
    default:
      return null;
  }
}

/** whole-list's one tool: the list written whole (api/mcp.md). */
export const todoWriteTool = defineTool(
  'todo_write',
  {
    title: 'Write the to-do list',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    description: DESCRIPTION,
    inputSchema: {
      todos: z
        .array(
          z.object({
            content: z.string().describe('What the step is, in a short line.'),
            status: z.string().describe('pending, in_progress or completed (every todo carries one).'),
          }),
        )
        .describe('The entire list, in order.'),
    },
    outputSchema: {
      sessionId: z.string().describe('The taskbase session this chat records into (hand it to hooks or helpers).'),
      message: z.string(),
      todos: z.array(z.object({ content: z.string(), status: z.string() })),
    },
    slip: todoSlip,
  },
  async ({ todos }, ctx, steered) =>
    guarded(ctx.logger, async () => {
      const entries = todos.map((todo) => {
        const state = STATUS_STATES[todo.status as Status];
        if (!state) {
          throw new ToolRefusal(`invalid todo: \`status\` must be one of ${STATUS_WORDS} (got "${todo.status}")`);
        }
        return { content: todo.content, status: state };
      });
      requireWrite(ctx);
      // Written before the agent heard of someone else's change, this list would undo it: not written, so it writes again knowingly.
      if (undoesSteering(steered.changes, entries)) {
        const caller = await callerOf(ctx);
        const now = await ctx.services.steering.planNow(caller.sessionId!);
        const list = now.map((todo) => `- [${wholeListStatus(todo.state as ItemState)}] ${todo.content}`).join('\n');
        return answer(
          `Not written: this list would undo the change above. The list now:\n${list || '(empty)'}\nSend todo_write again with the whole list you want, starting from this one.`,
          { sessionId: caller.sessionId!, message: 'Not written: this list would undo the change above.', todos: now.map((todo) => ({ content: todo.content, status: wholeListStatus(todo.state as ItemState) })) },
        );
      }
      const result = await ctx.services.plans.writeTodos(await callerOf(ctx), entries);
      // The service answers with the list it wrote: no second read.
      const live = result.items.filter((item) => !item.deleted);
      return answer(result.message, {
        sessionId: result.session.id,
        message: result.message,
        todos: live.map((item) => ({ content: item.text, status: wholeListStatus(item.state) })),
      });
    }, translate),
);
