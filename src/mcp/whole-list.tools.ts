import { z } from 'zod';
import type { ItemState } from '../domain/states.js';
import { callerOf, requireWrite } from './tool-context.js';
import type { ToolRegistrar } from './tool-registry.js';
import { answer, guarded, ToolRefusal } from './tool-result.js';

/** The whole-list statuses and the item states they are. */
const STATUS_STATES = { pending: 'PENDING', in_progress: 'IN_PROGRESS', completed: 'DONE' } as const satisfies Record<string, ItemState>;
type Status = keyof typeof STATUS_STATES;

/** An item state as the whole-list tool names it (a state set elsewhere, e.g. BLOCKED from the dashboard, reads lower-case). */
export function wholeListStatus(state: ItemState): string {
  const found = (Object.keys(STATUS_STATES) as Status[]).find((status) => STATUS_STATES[status] === state);
  return found ?? state.toLowerCase();
}

const DESCRIPTION = `Write your to-do list for this chat, whole. Every call sends the entire list and replaces the previous one: to change one item, send the full list again with that item changed; to drop one, send the list without it. Same text keeps its item. Use it for work with several steps; mark an item in_progress when you start it and completed when it is finished.
Statuses: pending, in_progress, completed.
Example: {"todos": [{"content": "Read the failing test", "status": "completed"}, {"content": "Fix the parser", "status": "in_progress"}, {"content": "Run the whole suite", "status": "pending"}]}
Answers "Updated todo list: 1 pending, 1 in progress, 1 completed."; a refusal starts with "Error: " and records nothing.`;

/** whole-list: todo_write, the list written whole (api/mcp.md). */
export function registerWholeListTools(tools: ToolRegistrar): void {
  tools.registerTool(
    'todo_write',
    {
      title: 'Write the to-do list',
      description: DESCRIPTION,
      inputSchema: {
        todos: z
          .array(
            z.object({
              content: z.string().describe('What the step is, in a short line.'),
              status: z.string().describe('pending, in_progress or completed.'),
            }),
          )
          .describe('The entire list, in order.'),
      },
      outputSchema: {
        sessionId: z.string().describe('The taskbase session this chat records into (hand it to hooks or helpers).'),
        message: z.string(),
        todos: z.array(z.object({ content: z.string(), status: z.string() })),
      },
    },
    async ({ todos }, ctx) =>
      guarded(ctx.logger, async () => {
        const entries = todos.map((todo) => {
          const state = STATUS_STATES[todo.status as Status];
          if (!state) {
            throw new ToolRefusal(`invalid todo: \`status\` must be one of pending, in_progress, completed (got "${todo.status}")`);
          }
          return { content: todo.content, status: state };
        });
        requireWrite(ctx);
        const result = await ctx.services.plans.writeTodos(await callerOf(ctx), entries);
        const steps = await ctx.services.taskReader.itemsOfTasks([result.plan!.id]);
        const live = steps[0]!.filter((item) => !item.deleted);
        return answer(result.message, {
          sessionId: result.session.id,
          message: result.message,
          todos: live.map((item) => ({ content: item.text, status: wholeListStatus(item.state) })),
        });
      }),
  );
}
