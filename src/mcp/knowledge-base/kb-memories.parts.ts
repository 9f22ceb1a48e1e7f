import { z } from 'zod';
import type { MemoryEntity } from '../../db/entities/index.js';
import { detailedItemLine, detailedItemViews, itemLine, loadMemory, loadTask, summaryText, taskSummary, type LoadedTask } from './kb-read.js';
import { kbRefusal } from './kb-text.js';
import { callerOf, type ToolContext } from '../common/tool-context.js';
import { answer, guarded } from '../common/tool-result.js';

export const ENTRY = z.object({
  uid: z.string(), type: z.string(), title: z.string(), domain: z.string(), status: z.string(), progress: z.string().optional(),
});
export const MEMORY = z.object({
  uid: z.string(), type: z.string(), title: z.string(), domain: z.string(), status: z.string(),
  body: z.string().optional(), goal: z.string().optional(), state: z.string().optional(),
  progress: z.record(z.string(), z.number()).optional(),
  linked: z.array(z.object({
    id: z.string(), number: z.number().int().nullable(), text: z.string(), notes: z.number().int(), comments: z.number().int(), links: z.number().int(),
    related: z.array(z.object({ uid: z.string(), type: z.string(), title: z.string() })),
  })).optional().describe('A task\'s items that have notes, comments or linked memories (the first 20).'),
});

/** get_memory lists at most this many items with notes, comments or links; task_read pages through them all. */
export const LINKED_SHOWN = 20;

/** A domain named in a read is recorded on the session for reminders; a read-only connection records nothing. */
export async function named(ctx: ToolContext, domain: string | undefined): Promise<void> {
  if (ctx.access === 'write' && domain !== undefined) await ctx.services.sessionDomains.named(await callerOf(ctx), domain);
}

export function entries<T extends { line: string }>(list: T[]) {
  return list.map(({ line: _line, ...entry }) => entry);
}

export const run = (ctx: ToolContext, work: () => Promise<ReturnType<typeof answer>>) => guarded(ctx.logger, work, kbRefusal);

/** A memory as get_memory answers: a task's goal, state, status and counts; a note's body. */
export async function describe(ctx: ToolContext, uid: string) {
  const memory = await loadMemory(ctx, uid);
  return memory.kind === 'NOTE' ? describeNote(memory) : describeTask(ctx, await loadTask(ctx, uid));
}

export function describeNote(memory: MemoryEntity) {
  const status = memory.archived ? 'archived' : 'active';
  const data = { uid: String(memory.id), type: 'note', title: memory.title, domain: memory.domain ?? '', status, body: memory.body };
  return answer(`Note ${memory.id} "${memory.title}" (${memory.domain}, ${status}):\n${memory.body}`, data);
}

export async function describeTask(ctx: ToolContext, loaded: LoadedTask) {
  const summary = taskSummary(loaded);
  const doing = summary.in_progress.length ? `\nIn progress:\n${summary.in_progress.map((item) => `  ${itemLine(item)}`).join('\n')}` : '';
  const { progress } = summary;
  const counts = `${progress.done} done, ${progress.inProgress} doing, ${progress.pending} todo, ${progress.dropped} dropped` +
    (progress.blocked ? `, ${progress.blocked} blocked` : '') + (progress.failed ? `, ${progress.failed} failed` : '');
  const withMore = (await detailedItemViews(ctx, loaded, loaded.live)).filter((view) => view.notes + view.comments + view.links > 0);
  const linked = withMore.slice(0, LINKED_SHOWN).map(({ id, number, text, notes, comments, links, related }) => ({ id, number, text, notes, comments, links, related }));
  const rest = withMore.length > LINKED_SHOWN ? `\n  (${withMore.length - LINKED_SHOWN} more: task_read with collection "items")` : '';
  const linkedText = linked.length
    ? `\nItems with notes, comments or linked memories:\n${withMore.slice(0, LINKED_SHOWN).map((view) => `  ${detailedItemLine(view)}`).join('\n')}${rest}`
    : '';
  return answer(`${summaryText(summary)}\nStatus: ${summary.status}. Items: ${counts} (${progress.total} in all).${doing}${linkedText}`, {
    uid: summary.uid, type: 'task', title: summary.title, domain: summary.domain, status: summary.status,
    goal: summary.goal, state: summary.state, progress: { ...progress }, linked,
  });
}
