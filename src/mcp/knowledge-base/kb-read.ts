import type { ItemEntity, MemoryEntity } from '../../db/entities/index.js';
import { oneLine } from '../../domain/one-line.js';
import type { Page } from '../../domain/paging.js';
import { deriveTaskState, progressOf, taskStatus } from '../../domain/states.js';
import type { TaskView } from '../../services/task-aggregate/task-view.js';
import type { ToolContext } from '../common/tool-context.js';
import { kbState, rendered, targetsOf } from './kb-text.js';
import { ToolRefusal } from '../common/tool-result.js';
import { claimView } from './kb-claims.js';

/**
 * A knowledge-base task as the services' one batched read gives it
 * (services.taskViews), or as a write answers with it: read alone or
 * written, with all its items, deleted ones too; in a listing, the live ones
 * and the deleted ones its goal cites.
 */
export type LoadedTask = TaskView;

function noTask(uid: string): ToolRefusal {
  return new ToolRefusal(`no task has uid "${uid}". Use the uid task returned, or find it with search or must_read.`);
}

/** A memory by uid; a session's plan is not one (its plan tools show it). */
export async function loadMemory(ctx: ToolContext, uid: string): Promise<MemoryEntity> {
  const [memory] = await ctx.services.taskReader.memoriesByIds([uid]);
  if (!memory || memory.sessionId) throw new ToolRefusal(`no memory has uid "${uid}". Use a uid task or remember returned, or find it with search.`);
  return memory;
}

export async function loadTask(ctx: ToolContext, uid: string): Promise<LoadedTask> {
  const { memory, task } = await ctx.services.taskViews.memory(uid);
  if (!memory || memory.sessionId) throw noTask(uid);
  if (!task) throw new ToolRefusal(`memory ${uid} is a note, not a task: read it with get_memory, change it with edit_memory.`);
  return task;
}

/** An item of this task, refused when it is another task's (a mixed-up id must not change the wrong list). */
export function itemOf(loaded: LoadedTask, item: string): ItemEntity {
  const found = loaded.all.find((candidate) => String(candidate.id) === item.trim());
  if (!found) {
    throw new ToolRefusal(`item "${item}" is not an item of task ${loaded.task.id}. Read the task's items (task_read with collection "items") for their ids.`);
  }
  return found;
}

/** A task as the tools describe it: state, status and counts, the goal rendered. */
export function taskSummary(loaded: LoadedTask) {
  const { task, all, live } = loaded;
  const state = deriveTaskState(all);
  const targets = targetsOf(all);
  return {
    uid: String(task.id),
    title: task.title,
    domain: task.domain ?? '',
    goal: rendered(task.goal, targets),
    state: state.toLowerCase(),
    status: taskStatus(state).toLowerCase(),
    progress: progressOf(all),
    in_progress: live.filter((item) => item.state === 'IN_PROGRESS').map((item) => itemView(loaded, item)),
  };
}

/** One item: id, its place now, label, state in the tools' words, latest note. */
export function itemView(loaded: LoadedTask, item: ItemEntity) {
  const number = item.deleted ? null : loaded.live.indexOf(item) + 1;
  const note = item.note === null ? null : rendered(item.note, targetsOf(loaded.all));
  return { id: String(item.id), number, text: item.text, state: kbState(item.state), note, deleted: item.deleted };
}

export function itemLine(view: ReturnType<typeof itemView>): string {
  const place = view.number === null ? 'deleted' : `#${view.number}`;
  return `${place} [${view.state}] ${view.text} (id ${view.id})${view.note ? ` - ${oneLine(view.note)}` : ''}`;
}

/** A memory linked to an item (task_item related), as the tools name it. */
function linkedView(memory: MemoryEntity) {
  return { uid: String(memory.id), type: memory.kind === 'TASK' ? 'task' : 'note', title: memory.title };
}

/**
 * Items with what an agent reads next to them: the memories linked to each
 * (related), its counts of notes (briefs), comments and links, and with
 * `coordination` its claim and the items it waits for, read for all of them
 * in one batched read (services.taskViews.shown).
 */
export async function detailedItemViews(ctx: ToolContext, loaded: LoadedTask, items: readonly ItemEntity[], coordination = false) {
  const shown = await ctx.services.taskViews.shown(items.map((item) => item.id), coordination);
  return items.map((item, index) => {
    const { related, notes, comments, links, claim, blockedBy } = shown[index]!;
    return {
      ...itemView(loaded, item), notes, comments, links, related: related.map(linkedView),
      claim: claimView(claim), blocked_by: blockedBy.map(String),
    };
  });
}

/** An item line with its counts and related memories: `… (id 10) - note; 1 note, 2 comments, 1 link: 14 "Provider retries" (note)`. */
export function detailedItemLine(view: Awaited<ReturnType<typeof detailedItemViews>>[number]): string {
  const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;
  const counts = [plural(view.notes, 'note'), plural(view.comments, 'comment'), plural(view.links, 'link')].join(', ');
  const related = view.related.map((memory) => `${memory.uid} "${memory.title}" (${memory.type})`).join(', ');
  return `${itemLine(view)}
    ${counts}${related ? `: ${related}` : ''}`;
}

export function summaryText(summary: ReturnType<typeof taskSummary>): string {
  const { progress } = summary;
  return `Task ${summary.uid} "${summary.title}" (${summary.domain}): ${summary.state}, ${progress.done}/${progress.total} done. Goal: ${summary.goal}`;
}

/** The tasks of a listing, each as taskSummary shows it, read together (services.taskViews.listed: a fixed few statements for any number). */
export async function listedSummaries(ctx: ToolContext, tasks: readonly MemoryEntity[]) {
  return (await ctx.services.taskViews.listed(tasks)).map(taskSummary);
}

/** The memories of a listing, each as one line and its data; its tasks read together. */
export async function memoryEntries(ctx: ToolContext, memories: readonly MemoryEntity[]) {
  const summaries = new Map((await listedSummaries(ctx, memories.filter((memory) => memory.kind === 'TASK'))).map((summary) => [summary.uid, summary]));
  return memories.map((memory) => {
    if (memory.kind === 'NOTE') {
      const status = memory.archived ? 'archived' : 'active';
      return { uid: String(memory.id), type: 'note', title: memory.title, domain: memory.domain ?? '', status, line: `${memory.id} [note, ${status}] ${memory.title} (${memory.domain})` };
    }
    const summary = summaries.get(String(memory.id))!;
    return {
      uid: summary.uid, type: 'task', title: summary.title, domain: summary.domain, status: summary.status,
      progress: `${summary.progress.done}/${summary.progress.total}`,
      line: `${summary.uid} [task, ${summary.state} ${summary.progress.done}/${summary.progress.total}] ${summary.title} (${summary.domain})`,
    };
  });
}

/**
 * The page at `offset` of a keyset-paged list, for tools whose callers page
 * by offset (task_read's next_offset): walks the keyset pages up to it, so a
 * page costs what its offset costs, never more than a read of the list.
 */
export async function pageAtOffset<T>(fetch: (first: number, after: string | null) => Promise<Page<T>>, offset: number, size: number) {
  let after: string | null = null;
  let skipped = 0;
  while (skipped < offset) {
    const step: Page<T> = await fetch(Math.min(200, offset - skipped), after);
    skipped += step.nodes.length;
    after = step.endCursor;
    if (!step.hasNextPage) return { nodes: [] as T[], more: false, total: step.totalCount };
  }
  const page = await fetch(size, after);
  return { nodes: page.nodes, more: page.hasNextPage, total: page.totalCount };
}
