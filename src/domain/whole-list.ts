/**
 * A whole-list write (writeTodos): which live items the list sent keeps (the
 * same trimmed text keeps its item and id), which are new, which are removed,
 * and the order the list is stored in. Apart from the history diff, which
 * only describes what the write changed.
 */
import { DomainError } from './errors.js';
import type { Snapshot } from './list-diff.js';
import type { ItemState } from './states.js';
import { cleanStepText, labelKey, normalizeText } from './text-rules.js';

/** One entry of a whole-list write (writeTodos). */
export interface TodoIn {
  content: string;
  status: ItemState;
  /** The validation or reason, for a state the session's rules ask a note for. */
  note?: string | null;
}

/** One item of the list a whole-list write will record. */
interface PlannedTodo {
  /** The live item this entry keeps; null for a new item. */
  id: string | null;
  text: string;
  state: ItemState;
  /** The note sent with it, if any (NFC and trimmed; the plan rules keep it to their length). */
  note?: string | null;
}

/**
 * Whole-list replace (writeTodos): the list sent becomes the plan. Each content
 * is cleaned as a step's text (text-rules.ts cleanStepText: trimmed, NFC); an entry whose trimmed text equals a live item's text keeps that
 * item's id (so its history, comments and references follow it), otherwise it
 * is new (id null). `existing` items not matched are the removed ones, in
 * `existing` order.
 *
 * Refuses, with the messages clients already know from the to-do tool:
 * EMPTY_TEXT for an entry with no text once trimmed, DUPLICATE_TEXT for two
 * entries that read the same (text-rules.ts labelKey).
 */
export function planWholeList(
  existing: readonly Snapshot[],
  todos: readonly TodoIn[],
): { next: PlannedTodo[]; removedIds: string[] } {
  const seen = new Set<string>();
  const texts = todos.map((todo, index) => {
    const text = cleanStepText(todo.content, `step ${index + 1}`);
    if (text === '') throw new DomainError('EMPTY_TEXT', 'invalid todo: `content` must be a non-empty string', { step: index + 1 });
    const key = labelKey(text);
    if (seen.has(key)) throw new DomainError('DUPLICATE_TEXT', `invalid todos: duplicate content "${text}"`, { step: index + 1, text });
    seen.add(key);
    return text;
  });

  // Live labels are unique, but should two ever share a text, the first keeps
  // the match and the other is removed rather than matched twice.
  const idByText = new Map<string, string>();
  for (const item of existing) if (!idByText.has(item.text)) idByText.set(item.text, item.id);

  const keptIds = new Set<string>();
  const next = todos.map((todo, index): PlannedTodo => {
    const text = texts[index]!;
    const id = idByText.get(text) ?? null;
    if (id !== null) keptIds.add(id);
    // The note's characters are held to every text's rules; its length is the plan rules' (keptNote).
    const note = todo.note === null || todo.note === undefined ? todo.note : normalizeText(todo.note, `the note of step ${index + 1}`);
    return { id, text, state: todo.status, note };
  });
  const removedIds = existing.filter((item) => !keptIds.has(item.id)).map((item) => item.id);
  return { next, removedIds };
}

/**
 * The full order of a list after a whole-list write: `live` (the new live
 * order, new ids included) with every item of `previous` (all ids in their
 * old order, deleted ones too) that is not live any more kept where it stood:
 * right after the nearest earlier item that is still live, or first when
 * there is none. So a list shown with its deleted items still reads in the
 * order it was written.
 */
export function orderWithRemoved(previous: readonly string[], live: readonly string[]): string[] {
  const liveIds = new Set(live);
  const leading: string[] = [];
  const following = new Map<string, string[]>();
  let anchor: string | null = null;
  for (const id of previous) {
    if (liveIds.has(id)) {
      anchor = id;
    } else if (anchor === null) {
      leading.push(id);
    } else {
      following.set(anchor, [...(following.get(anchor) ?? []), id]);
    }
  }
  return [...leading, ...live.flatMap((id) => [id, ...(following.get(id) ?? [])])];
}
