import { DomainError } from './errors.js';

/**
 * A position in the change log, as clients hold it: opaque, so the log's
 * numbering can change without breaking a stored cursor, and tagged, so a
 * cursor of another list (or a hand-made number) is refused, not misread.
 * The tag's version says how to read the rest.
 */
const TAG = 'chg1:';
/** The longest cursor encodeChangeCursor makes (a 16-digit id), with room to spare. */
const CURSOR_MAX = 40;

/** The opaque cursor of the change with this log id (a whole number ≥ 0; 0 is "before every change"). */
export function encodeChangeCursor(id: number): string {
  if (!Number.isSafeInteger(id) || id < 0) throw new RangeError(`a change-log id is a whole number ≥ 0; got ${id}`);
  return Buffer.from(`${TAG}${id}`).toString('base64url');
}

/**
 * The log id a cursor names, or null for no cursor (read from the oldest
 * change kept). Anything encodeChangeCursor did not make is BAD_USER_INPUT,
 * before any SQL sees it.
 */
export function decodeChangeCursor(cursor: string | null | undefined): number | null {
  if (cursor === null || cursor === undefined) return null;
  const text = cursor.length <= CURSOR_MAX && /^[A-Za-z0-9_-]+$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  const match = /^chg1:(0|[1-9]\d{0,15})$/.exec(text);
  const id = match ? Number(match[1]) : NaN;
  // Re-encoding must give the cursor back: base64url has several spellings of one byte string, and only one is ours.
  if (!Number.isSafeInteger(id) || encodeChangeCursor(id) !== cursor) {
    throw new DomainError(
      'BAD_USER_INPUT',
      'after is not a change-log cursor. Pass the id (or pageInfo.endCursor) of a change you read from this log, or omit after to start from the oldest change kept.',
      { field: 'after' },
    );
  }
  return id;
}
