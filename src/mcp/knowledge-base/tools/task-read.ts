import { z } from 'zod';
import { refsCitedIn } from '../../../domain/refs.js';
import { detailedItemLine, detailedItemViews, itemOf, itemView, loadTask, pageAtOffset } from '../kb-read.js';
import { rendered, targetsOf } from '../kb-text.js';
import { claimPhrase } from '../kb-claims.js';
import { stillBlocks } from '../../../domain/claims.js';
import { answer, ToolRefusal } from '../../common/tool-result.js';
import { REF, noteViews, run } from '../kb-tasks.parts.js';
import { defineTool } from '../../common/tool-definition.js';

/** task_read answers at most this many entries a page. */
const PAGE = 20;

export const taskReadTool = defineTool(
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
