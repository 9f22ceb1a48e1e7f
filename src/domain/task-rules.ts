import { DomainError, refuse } from './errors.js';

/** A task or note title: a label, longer than an item's since nothing lists it inline. */
export const TITLE_MAX = 200;

/** Lost-update guard: a change sent with the version the caller read is refused once the task moved on. */
export function checkExpectedVersion(taskId: string, current: number, expected: number | null | undefined): void {
  if (expected === null || expected === undefined || expected === current) return;
  throw refuse('VERSION_CONFLICT', { taskId, currentVersion: current, expectedVersion: expected });
}

export function taskNotFound(id: string): DomainError {
  return refuse('TASK_NOT_FOUND', { taskId: id });
}

export function itemNotFound(id: string): DomainError {
  return refuse('ITEM_NOT_FOUND', { itemId: id });
}

/** The item exists but not in the task the caller named: the same NOT_FOUND, with the way out. */
export function itemNotInTask(id: string, taskId: string): DomainError {
  return refuse('ITEM_NOT_IN_TASK', { taskId, itemId: id });
}

export function deletedItem(id: string, text: string): DomainError {
  return refuse('ITEM_DELETED', { itemId: id, text });
}

/** Row ids are 32-bit integers on every database (PostgreSQL's SERIAL). */
export const ID_MAX = 2_147_483_647;

/** Parses an id the API took as a string; a malformed one, or one past any row id, names nothing. */
export function parseId(id: string | number): number | null {
  const text = String(id).trim();
  if (!/^\d{1,10}$/.test(text)) return null;
  const value = Number(text);
  return value <= ID_MAX ? value : null;
}

/**
 * Memories one item may link to (related), in total. A list a reader asks for
 * must have a bound the query check can count on: without one, 200 items of
 * 100 links each answered 400 MB.
 */
export const LINKS_PER_ITEM_MAX = 100;

/** How many of an item's links a reader asks for (Item.related's first): all of them when null; BAD_USER_INPUT outside 0..LINKS_PER_ITEM_MAX. */
export function linksAsked(first: number | null | undefined): number {
  if (first === null || first === undefined) return LINKS_PER_ITEM_MAX;
  if (!Number.isInteger(first) || first < 0 || first > LINKS_PER_ITEM_MAX) {
    throw new DomainError('BAD_USER_INPUT', `related(first) must be a whole number from 0 to ${LINKS_PER_ITEM_MAX} (an item links at most ${LINKS_PER_ITEM_MAX}); got ${first}.`, { field: 'first', count: first, limit: LINKS_PER_ITEM_MAX });
  }
  return first;
}

/** TOO_LARGE when linking `adding` more memories would take an item past LINKS_PER_ITEM_MAX. */
export function checkLinkCount(itemId: string, linked: number, adding: number): void {
  if (linked + adding <= LINKS_PER_ITEM_MAX) return;
  throw new DomainError(
    'TOO_LARGE',
    `Item ${itemId} links ${linked} memories; linking ${adding} more would pass the limit of ${LINKS_PER_ITEM_MAX} per item. ` +
      `Link at most ${LINKS_PER_ITEM_MAX - linked} more, or gather related notes into one note and link that.`,
    { itemId, linked, count: adding, limit: LINKS_PER_ITEM_MAX },
  );
}
