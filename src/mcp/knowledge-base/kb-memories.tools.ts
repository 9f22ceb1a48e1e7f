import { z } from 'zod';
import type { MemoryEntity } from '../../db/entities/index.js';
import type { MemoryKind } from '../../domain/memory-kind.js';
import { detailedItemLine, detailedItemViews, itemLine, listedSummaries, loadMemory, loadTask, memoryEntries, summaryText, taskSummary, type LoadedTask } from './kb-read.js';
import { kbRefusal } from './kb-text.js';
import { callerOf, requireWrite, type ToolContext } from '../common/tool-context.js';
import type { ToolRegistrar } from '../common/tool-registry.js';
import { answer, guarded, ToolRefusal } from '../common/tool-result.js';
import { fittingCount } from '../common/answer-budget.js';
import { MUST_READ_MAX } from '../../services/memories/memory-reader.js';

const ENTRY = z.object({
  uid: z.string(), type: z.string(), title: z.string(), domain: z.string(), status: z.string(), progress: z.string().optional(),
});
const MEMORY = z.object({
  uid: z.string(), type: z.string(), title: z.string(), domain: z.string(), status: z.string(),
  body: z.string().optional(), goal: z.string().optional(), state: z.string().optional(),
  progress: z.record(z.string(), z.number()).optional(),
  linked: z.array(z.object({
    id: z.string(), number: z.number().int().nullable(), text: z.string(), notes: z.number().int(), comments: z.number().int(), links: z.number().int(),
    related: z.array(z.object({ uid: z.string(), type: z.string(), title: z.string() })),
  })).optional().describe('A task\'s items that have notes, comments or linked memories (the first 20).'),
});

/** must_read shows at most this many tasks an answer (fewer when their lines would pass the page budget). */
const MUST_READ_PAGE = 50;

/** get_memory lists at most this many items with notes, comments or links; task_read pages through them all. */
const LINKED_SHOWN = 20;

/** A domain named in a read is recorded on the session for reminders; a read-only connection records nothing. */
async function named(ctx: ToolContext, domain: string | undefined): Promise<void> {
  if (ctx.access === 'write' && domain !== undefined) await ctx.services.sessionDomains.named(await callerOf(ctx), domain);
}

function entries<T extends { line: string }>(list: T[]) {
  return list.map(({ line: _line, ...entry }) => entry);
}

/** knowledge-base, the memory tools: get_memory, edit_memory, remember, list_by_domain, must_read, search (api/mcp.md). */
export function registerKbMemoryTools(tools: ToolRegistrar): void {
  const run = (ctx: ToolContext, work: () => Promise<ReturnType<typeof answer>>) => guarded(ctx.logger, work, kbRefusal);

  /** A memory as get_memory answers: a task's goal, state, status and counts; a note's body. */
  async function describe(ctx: ToolContext, uid: string) {
    const memory = await loadMemory(ctx, uid);
    return memory.kind === 'NOTE' ? describeNote(memory) : describeTask(ctx, await loadTask(ctx, uid));
  }

  function describeNote(memory: MemoryEntity) {
    const status = memory.archived ? 'archived' : 'active';
    const data = { uid: String(memory.id), type: 'note', title: memory.title, domain: memory.domain ?? '', status, body: memory.body };
    return answer(`Note ${memory.id} "${memory.title}" (${memory.domain}, ${status}):\n${memory.body}`, data);
  }

  async function describeTask(ctx: ToolContext, loaded: LoadedTask) {
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

  tools.registerTool(
    'get_memory',
    {
      title: 'Read a memory',
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
      description: 'Read a memory by uid: for a task, its goal, state, status and counts, and the items that have notes, comments or linked memories (read them with task_read); for a note, its body.\nExample: {"uid": "12"}',
      inputSchema: { uid: z.string() },
      outputSchema: MEMORY.shape,
    },
    async ({ uid }, ctx) => run(ctx, () => describe(ctx, uid)),
  );

  tools.registerTool(
    'edit_memory',
    {
      title: 'Correct a memory in place',
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
      description: 'Correct a task or a note where it stands instead of filing it again: title, domain, and a task\'s goal or a note\'s body.\nExample: {"uid": "12", "goal": "Every billing and refund webhook is deduplicated by event id."}',
      inputSchema: { uid: z.string(), title: z.string().optional(), goal: z.string().optional(), body: z.string().optional(), domain: z.string().optional() },
      outputSchema: MEMORY.shape,
    },
    async ({ uid, title, goal, body, domain }, ctx) =>
      run(ctx, async () => {
        const memory = await loadMemory(ctx, uid);
        if (memory.kind === 'TASK' && body !== undefined) throw new ToolRefusal('a task has a goal, not a body: send goal (and title or domain) to change it.');
        if (memory.kind === 'NOTE' && goal !== undefined) throw new ToolRefusal('a note has a body, not a goal: send body (and title or domain) to change it.');
        if ([title, goal, body, domain].every((value) => value === undefined)) {
          throw new ToolRefusal(`say what to change: title, domain, or the ${memory.kind === 'TASK' ? 'task\'s goal' : 'note\'s body'}.`);
        }
        requireWrite(ctx);
        const caller = await callerOf(ctx);
        // Answered from what the edit wrote: the service returns the memory (a task with its items), so nothing is read again.
        if (memory.kind === 'TASK') return describeTask(ctx, await ctx.services.tasks.editTask(caller, { id: uid, title: title ?? null, goal: goal ?? null, domain: domain ?? null }));
        return describeNote(await ctx.services.notes.editNote(caller, { id: uid, title: title ?? null, body: body ?? null, domain: domain ?? null }));
      }),
  );

  tools.registerTool(
    'remember',
    {
      title: 'Remember a note',
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
      description: 'Keep a note (a plain memory) in a domain, for later sessions and search; link it to an item with task_item related.\nExample: {"title": "Provider retries webhooks for 72h", "body": "Events can arrive up to three days late.", "domain": "acme/checkout/billing"}',
      inputSchema: { title: z.string(), body: z.string(), domain: z.string() },
      outputSchema: { uid: z.string() },
    },
    async ({ title, body, domain }, ctx) =>
      run(ctx, async () => {
        requireWrite(ctx);
        const note = await ctx.services.notes.createNote(await callerOf(ctx), { title, body, domain });
        return answer(`Remembered note ${note.id} "${note.title}" in ${note.domain}.`, { uid: String(note.id) });
      }),
  );

  tools.registerTool(
    'list_by_domain',
    {
      title: 'List a scope',
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
      description: 'List the memories of a domain and below, newest first (the first 50): type "task" or "note", status "active" or "archived" (closed tasks are archived).\nExample: {"domain": "acme/checkout", "type": "task", "status": "archived"}',
      inputSchema: {
        domain: z.string(), type: z.string().optional().describe('task or note'), status: z.string().optional().describe('active or archived'),
      },
      outputSchema: { memories: z.array(ENTRY), total: z.number().int() },
    },
    async ({ domain, type, status }, ctx) =>
      run(ctx, async () => {
        const kind = type === undefined ? null : ({ task: 'TASK', note: 'NOTE' } as Record<string, MemoryKind>)[type];
        if (kind === undefined) throw new ToolRefusal(`type must be task or note (got "${type}").`);
        const state = status === undefined ? null : ({ active: 'ACTIVE', archived: 'ARCHIVED' } as const)[status as 'active'];
        if (state === undefined) throw new ToolRefusal(`status must be active or archived (got "${status}").`);
        const page = await ctx.services.memoryReader.memories({ domain, kind, status: state, first: 50 });
        await named(ctx, domain);
        const list = await memoryEntries(ctx, page.nodes);
        const text = list.length ? list.map((entry) => entry.line).join('\n') : `(nothing in ${domain})`;
        return answer(`${page.totalCount} in ${domain}:\n${text}`, { memories: entries(list), total: page.totalCount });
      }),
  );

  tools.registerTool(
    'must_read',
    {
      title: 'Open tasks of a scope',
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
      description: 'The open tasks of a domain and below, most recently updated first, each with its progress (done/total) and the items in progress. Read it when you start work in a domain; a long list comes in pages (offset).\nExample: {"domain": "acme/checkout", "type": "task"}',
      inputSchema: {
        domain: z.string(), type: z.string().optional().describe('task (the only kind it lists)'),
        offset: z.number().int().optional().describe('Tasks to skip: the offset the last page named (default 0).'),
      },
      outputSchema: {
        tasks: z.array(z.object({ uid: z.string(), title: z.string(), domain: z.string(), progress: z.string(), in_progress: z.array(z.string()) })),
        more: z.number().int().describe('Open tasks listed after this page.'),
        next_offset: z.number().int().nullable().describe('The offset of the next page; null on the last.'),
      },
    },
    async ({ domain, type, offset = 0 }, ctx) =>
      run(ctx, async () => {
        if (type !== undefined && type !== 'task') throw new ToolRefusal(`must_read lists tasks only: send type "task" or leave it out (got "${type}").`);
        if (offset < 0) throw new ToolRefusal(`offset is ${offset}; send 0 (the default) or the offset a page named.`);
        const rows = await ctx.services.memoryReader.mustRead(domain);
        await named(ctx, domain);
        // Only the page's tasks are summarised; the page ends at MUST_READ_PAGE tasks or at the answer budget, whichever comes first.
        const candidates = await listedSummaries(ctx, rows.slice(offset, offset + MUST_READ_PAGE));
        const allLines = candidates.map((task) => {
          const doing = task.in_progress.map((item) => `\n    doing: ${item.text} (id ${item.id})`).join('');
          return `${task.uid} ${task.title} (${task.domain}) ${task.progress.done}/${task.progress.total}${doing}`;
        });
        const shown = fittingCount(allLines);
        const tasks = candidates.slice(0, shown);
        const nextOffset = offset + shown;
        const more = Math.max(0, rows.length - nextOffset);
        // mustRead lists the MUST_READ_MAX most recently updated: at the cap, older open tasks exist beyond the list.
        const capped = rows.length >= MUST_READ_MAX ? ` (must_read lists the ${MUST_READ_MAX} most recently updated; older open tasks may exist: name a narrower domain to see them)` : '';
        const rest = more
          ? `\n${more} more: must_read with offset ${nextOffset}.${capped}`
          : offset > 0 || capped ? `\nNo more after these.${capped}` : '';
        let text: string;
        if (tasks.length) text = `Open tasks in ${domain}${offset || more ? `, ${offset + 1}-${nextOffset} of ${rows.length}` : ''}:\n${allLines.slice(0, shown).join('\n')}${rest}`;
        else if (rows.length) text = `No open tasks past offset ${offset} in ${domain}: there are ${rows.length}. Send an offset below ${rows.length}, or leave it out.`;
        else text = `No open tasks in ${domain}.`;
        return answer(text, {
          tasks: tasks.map((task) => ({
            uid: task.uid, title: task.title, domain: task.domain, progress: `${task.progress.done}/${task.progress.total}`,
            in_progress: task.in_progress.map((item) => item.text),
          })),
          more,
          next_offset: more ? nextOffset : null,
        });
      }),
  );

  tools.registerTool(
    'search',
    {
      title: 'Search memories',
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
      description: 'Search notes and tasks (title, goal, item labels) by words, best first (the first 20); task notes are never returned. Any characters are safe.\nExample: {"query": "webhook idempotent", "domain": "acme/checkout"}',
      inputSchema: { query: z.string(), domain: z.string().optional() },
      outputSchema: { memories: z.array(ENTRY), total: z.number().int() },
    },
    async ({ query, domain }, ctx) =>
      run(ctx, async () => {
        const page = await ctx.services.memoryReader.search({ query, domain: domain ?? null, first: 20 });
        await named(ctx, domain);
        const list = await memoryEntries(ctx, page.nodes);
        return answer(list.length ? list.map((entry) => entry.line).join('\n') : `Nothing matches "${query}".`, { memories: entries(list), total: page.totalCount });
      }),
  );
}
