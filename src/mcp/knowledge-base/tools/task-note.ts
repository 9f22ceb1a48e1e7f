import { z } from 'zod';
import { parseDependsOn, parseIds } from '../kb-text.js';
import { callerOf, requireWrite } from '../../common/tool-context.js';
import { answer, ToolRefusal } from '../../common/tool-result.js';
import { NOTE_SCHEMA, noteViews, run } from '../kb-tasks.parts.js';
import { defineTool } from '../../common/tool-definition.js';

export const taskNoteTool = defineTool(
  'task_note',
  {
    title: 'Brief items, or note the task',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    description: `Write a task note (never returned by search; read it with task_read). For a brief on items give items (one id, or several comma-separated) and every field: goal, context, steps, pitfalls, done_when, depends_on ("none", or ids of the items it waits for, each with an optional reason: "57 (the event-id handler)"); extra_info is optional. For a note on the whole task give body instead.
Example: {"uid": "12", "title": "Replay queue", "items": "59", "goal": "Replays are idempotent.", "context": "The queue lives in the webhook worker.", "steps": "Persist each event id first.", "pitfalls": "A restart must not double-book.", "done_when": "The restart test passes.", "depends_on": "57 (the event-id handler)"}`,
    inputSchema: {
      uid: z.string(), title: z.string(),
      items: z.string().optional().describe('Item ids the brief is on, comma-separated.'),
      goal: z.string().optional(), context: z.string().optional(), steps: z.string().optional(), pitfalls: z.string().optional(),
      done_when: z.string().optional(), depends_on: z.string().optional().describe('"none" or "<id> (<reason>), <id>".'),
      extra_info: z.string().optional(), body: z.string().optional().describe('A note on the whole task (instead of items and the brief).'),
    },
    outputSchema: NOTE_SCHEMA,
  },
  async (args, ctx) =>
    run(ctx, async () => {
      const briefing = args.items !== undefined;
      if (briefing && args.body !== undefined) throw new ToolRefusal('send body (a note on the whole task) or items with the brief\'s fields (a brief on items), not both.');
      if (!briefing && args.body === undefined) {
        throw new ToolRefusal('send body for a note on the whole task, or items with goal, context, steps, pitfalls, done_when and depends_on for a brief on items.');
      }
      if (briefing && args.depends_on === undefined) {
        throw new ToolRefusal('a brief needs depends_on: "none", or the ids of the items this one waits for, e.g. "57 (the event-id handler)".');
      }
      const brief = briefing
        ? {
            goal: args.goal ?? '', context: args.context ?? '', steps: args.steps ?? '', pitfalls: args.pitfalls ?? '',
            doneWhen: args.done_when ?? '', dependsOn: parseDependsOn(args.depends_on!), extraInfo: args.extra_info ?? null,
          }
        : null;
      requireWrite(ctx);
      // The service refuses a uid that names no task; it answers with the task as it wrote it.
      const added = await ctx.services.taskNotes.addTaskNote(await callerOf(ctx), {
        taskId: args.uid, title: args.title, items: briefing ? parseIds(args.items!) : null, brief, body: args.body ?? null, tasksOnly: true,
      });
      const view = (await noteViews(ctx, added.view, [added.note], [added.items]))[0]!;
      return answer(view.text, view.data);
    }),
);
