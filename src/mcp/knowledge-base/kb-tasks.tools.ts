import { z } from 'zod';
import type { TaskNoteEntity } from '../../db/entities/index.js';
import { splitItemsText } from '../../domain/text-rules.js';
import { refsCitedIn } from '../../domain/refs.js';
import { taskNoteTexts } from '../../domain/briefs.js';
import { detailedItemLine, detailedItemViews, itemLine, itemOf, itemView, loadTask, pageAtOffset, summaryText, taskSummary, type LoadedTask } from './kb-read.js';
import { dependsOnText, kbRefusal, parseDependsOn, parseIds, parseKbState, rendered, targetsOf } from './kb-text.js';
import { claimPhrase, fenceLine, heldByAnotherLine } from './kb-claims.js';
import { stillBlocks, type FenceVerdict } from '../../domain/claims.js';
import { callerOf, requireWrite, type ToolContext } from '../common/tool-context.js';
import type { ToolRegistrar } from '../common/tool-registry.js';
import { answer, guarded, ToolRefusal } from '../common/tool-result.js';

const PAGE = 20;
const ITEM = z.object({ id: z.string(), number: z.number().int().nullable(), text: z.string(), state: z.string(), note: z.string().nullable(), deleted: z.boolean() });
const TASK = z.object({
  uid: z.string(), title: z.string(), domain: z.string(), goal: z.string(), state: z.string(), status: z.string(),
  progress: z.object({ done: z.number(), total: z.number(), pending: z.number(), inProgress: z.number(), dropped: z.number(), blocked: z.number(), failed: z.number() }),
  in_progress: z.array(ITEM),
});
const REF = z.object({ id: z.string(), number: z.number().int().nullable(), text: z.string(), deleted: z.boolean() });

/** knowledge-base, the task tools: task, task_item, task_add, task_comment, task_note, task_read (api/mcp.md). */
export function registerKbTaskTools(tools: ToolRegistrar): void {
  const run = (ctx: ToolContext, work: () => Promise<ReturnType<typeof answer>>) => guarded(ctx.logger, work, kbRefusal);

  tools.registerTool(
    'task',
    {
      title: 'Open a task',
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
      description: `Open a knowledge-base task: a goal plus a checklist that outlives this chat (open tasks come first in every later session). items is one label per line, each a short verb-first label of at most 80 characters; domain is a scope such as acme/checkout/billing. Free text cites an item as [[#id]].
Example: {"title": "Move billing webhooks to the idempotent handler", "goal": "Every billing webhook is deduplicated by event id.", "items": "Key charge.succeeded by event id\\nCover refunds and disputes", "domain": "acme/checkout/billing"}`,
      inputSchema: {
        title: z.string(), goal: z.string(),
        items: z.string().describe('One label per line.'),
        domain: z.string().describe('e.g. acme/checkout/billing'),
      },
      outputSchema: { uid: z.string(), items: z.array(z.string()).describe('The item ids, in order.'), task: TASK },
    },
    async ({ title, goal, items, domain }, ctx) =>
      run(ctx, async () => {
        requireWrite(ctx);
        const made = await ctx.services.tasks.createTask(await callerOf(ctx), { title, goal, itemsText: items, domain });
        const lines = made.view.live.map((item) => `  ${itemLine(itemView(made.view, item))}`).join('\n');
        return answer(`Created task ${made.task.id} "${made.task.title}" in ${made.task.domain} with ${made.items.length} items:\n${lines}`, {
          uid: String(made.task.id), items: made.items.map((item) => String(item.id)), task: taskSummary(made.view),
        });
      }),
  );

  tools.registerTool(
    'task_item',
    {
      title: 'Change one item',
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
      description: `Change one item of a task: its state (todo, doing, done, dropped), a comment (kept as the item's note when the state changes), a related memory to link, a new label (text; id, state and brief stay), or delete it (delete: true, alone in its call; no other item moves). Mark work decided against dropped rather than deleting it. Claims fence: while another agent's claim holds the item (or after your own lapsed claim was taken over), a state or text change is refused with who holds it and for how long; force: true with the reason in comment changes it anyway, and the override is recorded.
Example: {"uid": "12", "item": "57", "state": "done", "comment": "Handler keys off the event id."}`,
      inputSchema: {
        uid: z.string().describe('The task.'), item: z.string().describe('The item id.'),
        state: z.string().optional().describe('todo, doing, done or dropped.'),
        comment: z.string().optional(), related: z.string().optional().describe('A memory id to link to the item.'),
        text: z.string().optional().describe('A new label.'), delete: z.boolean().optional(),
        force: z.boolean().optional().describe("Change the state or text past another agent's claim; give the reason in comment."),
      },
      outputSchema: { item: ITEM, task: TASK },
    },
    async (args, ctx) =>
      run(ctx, async () => {
        const loaded = await loadTask(ctx, args.uid);
        const item = itemOf(loaded, args.item);
        const others = (['state', 'comment', 'related', 'text'] as const).filter((name) => args[name] !== undefined);
        const caller = await callerOf(ctx);
        let after: LoadedTask;
        let fence: FenceVerdict | null = null;
        if (args.delete) {
          if (others.length) throw new ToolRefusal(`a delete stands alone: send delete with uid and item only (not ${others.join(', ')}).`);
          requireWrite(ctx);
          after = await ctx.services.tasks.deleteItem(caller, String(item.id));
        } else {
          if (others.length === 0) throw new ToolRefusal('say what to change: state, comment, related, text, or delete: true.');
          const state = args.state === undefined ? null : parseKbState(args.state);
          requireWrite(ctx);
          ({ view: after, fence } = await ctx.services.tasks.updateItem(caller, {
            id: String(item.id), state, comment: args.comment ?? null, text: args.text ?? null, related: args.related ? [args.related] : null, force: args.force ?? null,
          }));
        }
        // The task as the write left it: the service answers with it, so nothing is read again.
        const view = itemView(after, after.all.find((candidate) => candidate.id === item.id)!);
        const summary = taskSummary(after);
        const lead = args.delete ? `Deleted item ${view.id} "${view.text}"; no other item moved.` : itemLine(view);
        const held = args.delete ? null : await heldByAnotherLine(ctx, item, caller.sessionId);
        const lines = [lead, fence ? fenceLine(fence, item.id) : null, held, summaryText(summary)].filter(Boolean);
        return answer(lines.join('\n'), { item: view, task: summary });
      }),
  );

  tools.registerTool(
    'task_add',
    {
      title: 'Add items',
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
      description: `Add items to a task, one label per line, after the item after (at the end when left out). Adding to a closed task reopens it.
Example: {"uid": "12", "items": "Document the replay queue", "after": "58"}`,
      inputSchema: { uid: z.string(), items: z.string().describe('One label per line.'), after: z.string().optional().describe('Insert after this item id.') },
      outputSchema: { items: z.array(z.string()), task: TASK },
    },
    async ({ uid, items, after }, ctx) =>
      run(ctx, async () => {
        const loaded = await loadTask(ctx, uid);
        if (after !== undefined) itemOf(loaded, after);
        const labels = splitItemsText(items);
        if (labels.length === 0) throw new ToolRefusal('items holds no label: send one label per line.');
        requireWrite(ctx);
        const added = await ctx.services.tasks.addItems(await callerOf(ctx), { taskId: String(loaded.task.id), items: labels, after: after ?? null });
        const now = added.view;
        const lines = added.items.map((item) => `  ${itemLine(itemView(now, now.all.find((c) => c.id === item.id)!))}`).join('\n');
        return answer(`Added ${added.items.length} item${added.items.length === 1 ? '' : 's'}:\n${lines}\n${summaryText(taskSummary(now))}`, {
          items: added.items.map((item) => String(item.id)), task: taskSummary(now),
        });
      }),
  );

  tools.registerTool(
    'task_comment',
    {
      title: 'Comment',
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
      description: `Comment on a task, or on one of its items (item). Cite items as [[#id]]; the answer shows them rendered.
Example: {"uid": "12", "body": "Disputes need their own queue, like [[#58]]?"}`,
      inputSchema: { uid: z.string(), body: z.string(), item: z.string().optional().describe('Comment on this item.') },
      outputSchema: { id: z.string(), body: z.string(), text: z.string().describe('The body with [[#id]] rendered.'), item: z.string().nullable() },
    },
    async ({ uid, body, item }, ctx) =>
      run(ctx, async () => {
        const loaded = await loadTask(ctx, uid);
        const on = item === undefined ? null : itemOf(loaded, item);
        requireWrite(ctx);
        const caller = await callerOf(ctx);
        const { comment, view } = await ctx.services.comments.addComment(caller, { taskId: String(loaded.task.id), body, item: item ?? null });
        const text = rendered(comment.body, targetsOf(view.all));
        const held = on ? await heldByAnotherLine(ctx, on, caller.sessionId) : null;
        return answer(`Comment ${comment.id} on ${item ? `item ${item}` : `task ${uid}`}: ${text}${held ? `\n${held}` : ''}`, {
          id: String(comment.id), body: comment.body, text, item: comment.itemId === null ? null : String(comment.itemId),
        });
      }),
  );

  tools.registerTool(
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
        const loaded = await loadTask(ctx, args.uid);
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
        const added = await ctx.services.taskNotes.addTaskNote(await callerOf(ctx), {
          taskId: String(loaded.task.id), title: args.title, items: briefing ? parseIds(args.items!) : null, brief, body: args.body ?? null,
        });
        const view = (await noteViews(ctx, added.view, [added.note], [added.items]))[0]!;
        return answer(view.text, view.data);
      }),
  );

  tools.registerTool(
    'task_read',
    {
      title: 'Read a task in pages',
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
      description: `Read one collection of a task, a page at a time: "items" (each with id, number, state, note, its counts of notes, comments and links, the memories linked to it, its claim - who works on it, until when - and blocked_by, the ids of the items it still waits for), "notes" (briefs and whole-task notes) or "comments" (the task's own; with item, that item's). item narrows notes and comments to one item. Follow next_offset until it is absent; refs names each [[#id]] on the page.
Example: {"uid": "12", "collection": "notes", "item": "59"}`,
      inputSchema: {
        uid: z.string(), collection: z.string().describe('items, notes or comments.'),
        item: z.string().optional(), offset: z.number().int().min(0).optional(),
      },
      outputSchema: {
        collection: z.string(), entries: z.array(z.record(z.string(), z.unknown())), total: z.number().int(),
        next_offset: z.number().int().optional(), refs: z.array(REF),
      },
    },
    async ({ uid, collection, item, offset = 0 }, ctx) =>
      run(ctx, async () => {
        const loaded = await loadTask(ctx, uid);
        const itemId = item === undefined ? null : itemOf(loaded, item).id;
        const targets = targetsOf(loaded.all);
        let entries: { line: string; data: Record<string, unknown>; texts: string[] }[];
        let total: number;
        let more: boolean;
        if (collection === 'items') {
          const live = loaded.live.filter((candidate) => itemId === null || candidate.id === itemId);
          total = live.length;
          const page = live.slice(offset, offset + PAGE);
          // With who holds each item and what it still waits for, so an agent sees what is taken and what cannot start
          // yet: only the items that still hold it back (a settled or deleted one no longer does), each by place and label.
          const views = await detailedItemViews(ctx, loaded, page, true);
          const self = await ctx.session.id();
          const byId = new Map(loaded.all.map((candidate) => [String(candidate.id), candidate]));
          entries = views.map((all) => {
            const view = { ...all, blocked_by: all.blocked_by.filter((id) => stillBlocks(byId.get(id))) };
            const waits = view.blocked_by.map((id) => itemView(loaded, byId.get(id)!)).map((target) => `#${target.number} ${target.text}`);
            const marks = [view.claim ? claimPhrase(view.claim, self) : null, waits.length ? `waits for ${waits.join(', ')}` : null].filter(Boolean);
            const [first, ...rest] = detailedItemLine(view).split('\n');
            const line = [`${first}${marks.length ? ` [${marks.join('; ')}]` : ''}`, ...rest].join('\n');
            return { line, data: view, texts: [] };
          });
          more = offset + PAGE < total;
        } else if (collection === 'notes') {
          const page = await pageAtOffset((first, after) => ctx.services.taskNoteReader.taskNotes(loaded.task.id, itemId, first, after), offset, PAGE);
          entries = (await noteViews(ctx, loaded, page.nodes)).map((view) => ({ line: view.text, data: view.data, texts: view.texts }));
          ({ total, more } = page);
        } else if (collection === 'comments') {
          const page = await pageAtOffset((first, after) => ctx.services.commentReader.comments({ taskId: loaded.task.id, itemId, first, after }), offset, PAGE);
          entries = page.nodes.map((comment) => {
            const text = rendered(comment.body, targets);
            const on = comment.itemId === null ? '' : ` on item ${comment.itemId}`;
            return { line: `comment ${comment.id}${on} (${comment.createdAt}): ${text}`, data: { id: String(comment.id), item: comment.itemId === null ? null : String(comment.itemId), body: comment.body, text }, texts: [comment.body] };
          });
          ({ total, more } = page);
        } else {
          throw new ToolRefusal(`collection must be items, notes or comments (got "${collection}").`);
        }
        const refs = refsCitedIn(entries.flatMap((entry) => entry.texts), targets);
        const nextOffset = more ? offset + entries.length : undefined;
        const footer = nextOffset === undefined ? `(${total} in all; this is the last page)` : `(${total} in all; next_offset ${nextOffset})`;
        const body = entries.length ? entries.map((entry) => entry.line).join('\n\n') : `(no ${collection})`;
        return answer(`${collection} of task ${uid}, from ${offset}:\n${body}\n${footer}`, {
          collection, entries: entries.map((entry) => entry.data), total, ...(nextOffset === undefined ? {} : { next_offset: nextOffset }), refs,
        });
      }),
  );
}

const NOTE_SCHEMA = {
  id: z.string(), title: z.string(), items: z.array(z.string()), body: z.string().nullable(),
  brief: z.object({
    goal: z.string(), context: z.string(), steps: z.string(), pitfalls: z.string(), done_when: z.string(),
    depends_on: z.string().describe('Rendered: "[#1 Label] (reason)" one per line, or none.'), extra_info: z.string().nullable(),
  }).nullable(),
};

/**
 * Task notes as the tools show them: the body or each brief field rendered,
 * depends_on as the items now read. `itemIds`, the items each note is on,
 * when the caller has them (a write's answer); read otherwise.
 */
export async function noteViews(ctx: ToolContext, loaded: LoadedTask, notes: readonly TaskNoteEntity[], itemIds?: readonly (readonly number[])[]) {
  const targets = targetsOf(loaded.all);
  itemIds ??= await ctx.services.taskNoteReader.itemsOfNotes(notes.map((note) => note.id));
  return notes.map((note, index) => {
    const items = (itemIds[index] ?? []).map(String);
    const brief = note.brief;
    const r = (text: string) => rendered(text, targets);
    const data = {
      id: String(note.id), title: note.title, items, body: note.body === null ? null : r(note.body),
      brief: brief && {
        goal: r(brief.goal), context: r(brief.context), steps: r(brief.steps), pitfalls: r(brief.pitfalls), done_when: r(brief.doneWhen),
        depends_on: dependsOnText(brief.dependsOn, targets), extra_info: brief.extraInfo === null ? null : r(brief.extraInfo),
      },
    };
    const on = items.length ? ` on ${items.map((id) => r(`[[#${id}]]`)).join(', ')}` : ' on the whole task';
    const fields = data.brief
      ? `GOAL: ${data.brief.goal}\nCONTEXT: ${data.brief.context}\nSTEPS: ${data.brief.steps}\nPITFALLS: ${data.brief.pitfalls}\nDONE WHEN: ${data.brief.done_when}\nDEPENDS ON: ${data.brief.depends_on}` +
        (data.brief.extra_info ? `\nEXTRA INFO: ${data.brief.extra_info}` : '')
      : (data.body ?? '');
    return { text: `Note ${note.id} "${note.title}"${on}:\n${fields}`, data, texts: taskNoteTexts(note) };
  });
}
