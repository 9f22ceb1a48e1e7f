import { DomainError } from './errors.js';
import { ID_MAX } from './task-rules.js';

export const PAGE_SIZE_DEFAULT = 50;
export const PAGE_SIZE_MAX = 200;

/** `first` as the API takes it: 1..200, 50 when omitted; a larger one is refused, never capped. */
export function pageSize(first: number | null | undefined): number {
  if (first === null || first === undefined) return PAGE_SIZE_DEFAULT;
  if (!Number.isInteger(first) || first < 1) {
    throw new DomainError('BAD_USER_INPUT', `first must be a whole number from 1 to ${PAGE_SIZE_MAX}; got ${first}.`, { field: 'first', count: first, limit: PAGE_SIZE_MAX });
  }
  if (first > PAGE_SIZE_MAX) {
    throw new DomainError(
      'TOO_LARGE',
      `first is at most ${PAGE_SIZE_MAX}; got ${first}. Ask for ${PAGE_SIZE_MAX} or fewer and follow pageInfo.endCursor for the rest.`,
      { field: 'first', count: first, limit: PAGE_SIZE_MAX },
    );
  }
  return first;
}

/**
 * A keyset cursor is the last row's ordering key, opaque to clients: page
 * 1,000 costs what page 1 costs. The key is a list of strings and numbers.
 */
type CursorKey = readonly (string | number)[];

export function encodeCursor(key: CursorKey): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/**
 * What each element of a list's cursor key is: a row id (a whole number in
 * the database's integer range), any number (a rank), or a string. A cursor
 * of another list, or a hand-made one, is refused rather than misread.
 */
export type CursorKeyType = 'id' | 'rank' | 'string' | 'stamp' | 'token';

const FITS: Record<CursorKeyType, (k: unknown) => boolean> = {
  id: (k) => Number.isSafeInteger(k) && (k as number) >= 0 && (k as number) <= ID_MAX,
  // A search rank is a small whole number (a tier); PostgreSQL compares it with an integer, so 0.5 must not reach it.
  rank: (k) => Number.isSafeInteger(k) && (k as number) >= 0 && (k as number) <= 1000,
  string: (k) => typeof k === 'string' && /^\d{1,10}$/.test(k),
  // A stored time (ISO 8601, as the rows keep it) and a server-made id (a session's): compared as text, so only their own characters.
  stamp: (k) => typeof k === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,3})?Z$/.test(k),
  token: (k) => typeof k === 'string' && /^[\w-]{1,64}$/.test(k),
};

/** The key of a keyset-paged list of rows: the last row's id. */
export const ROW_CURSOR: readonly CursorKeyType[] = ['id'];
/** The key of a list paged in memory (a task's items): the last item's id, as a string. */
export const LIST_CURSOR: readonly CursorKeyType[] = ['string'];
/** The key of search hits: the last hit's rank tier, then its memory id. */
export const SEARCH_CURSOR: readonly CursorKeyType[] = ['rank', 'id'];
/** The key of sessions listed newest first: the last session's start time, then its id. */
export const SESSION_CURSOR: readonly CursorKeyType[] = ['stamp', 'token'];
/** Memories most recently changed first: the last one's updatedAt, then its id. */
export const UPDATED_CURSOR: readonly CursorKeyType[] = ['stamp', 'id'];
/** How a memories page is ordered: by id (newest first), or by when each was last changed. */
export type MemoryOrder = 'NEWEST' | 'RECENTLY_UPDATED';
/** The inbox of stuck items: newest change first, then id. */
export const STUCK_CURSOR: readonly CursorKeyType[] = ['stamp', 'id'];

/** What encodeCursor makes: base64url, at most 200 characters. */
const BASE64URL = /^[A-Za-z0-9_-]{1,200}$/;

/**
 * Reads a cursor of a list whose key is `types` (ROW_CURSOR, LIST_CURSOR or
 * SEARCH_CURSOR): every part of the type it should be, so a cursor of another
 * kind of list, or a hand-made one, is BAD_USER_INPUT on every database
 * before any SQL sees it.
 */
export function decodeCursor(cursor: string | null | undefined, types: readonly CursorKeyType[]): CursorKey | null {
  if (cursor === null || cursor === undefined) return null;
  let key: unknown;
  try {
    // A cursor is short base64url; anything else (a long string, NUL, other characters the decoder would skip) is not one.
    key = BASE64URL.test(cursor) ? JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) : undefined;
  } catch {
    key = undefined;
  }
  const fits = (k: unknown, index: number) => FITS[types[index]](k);
  if (!Array.isArray(key) || key.length !== types.length || !key.every(fits)) {
    throw new DomainError(
      'BAD_USER_INPUT',
      'after is not a cursor of this list. Pass pageInfo.endCursor from the previous page of the same list, or omit it for the first page.',
      { field: 'after' },
    );
  }
  return key as CursorKey;
}

/** One page of a keyset-paged list. */
export interface Page<T> {
  nodes: T[];
  /** Each row's cursor, in order (worked out when first read). */
  readonly cursors: string[];
  hasNextPage: boolean;
  endCursor: string | null;
  totalCount: number;
}

/**
 * Builds a page from rows fetched with limit `size + 1` (the extra row only
 * says whether there is a next page).
 */
export function pageFrom<T>(rows: T[], size: number, keyOf: (row: T) => CursorKey, totalCount: number): Page<T> {
  const nodes = rows.slice(0, size);
  // Only the last row's cursor is made now: most pages are read as nodes and pageInfo, and each cursor is a JSON and a
  // base64 encoding (70 per dashboard read, one of them shown). The others are made if edges are asked for.
  let cursors: string[] | undefined;
  return {
    nodes,
    get cursors() {
      return (cursors ??= nodes.map((row) => encodeCursor(keyOf(row))));
    },
    hasNextPage: rows.length > size,
    endCursor: nodes.length ? encodeCursor(keyOf(nodes[nodes.length - 1]!)) : null,
    totalCount,
  };
}

/** BAD_USER_INPUT for a well-formed cursor that names no row of the list paged. */
export function rowNotInList(): DomainError {
  return new DomainError('BAD_USER_INPUT', 'after names a row that is not in this list. Pass pageInfo.endCursor from the previous page of the same list, or start again without after.', { field: 'after' });
}

/**
 * Pages a list already held in memory in its order (a task's items: at most
 * 500), keyed by a unique id: the cursor is the last id seen, not an offset.
 * `all` holds every row, shown or not, so a cursor whose row has since been
 * hidden (a deleted item) still marks the place to continue from; `shown`
 * picks the rows the page lists and counts.
 */
export function pageInMemory<T>(
  all: readonly T[],
  first: number | null | undefined,
  after: string | null | undefined,
  idOf: (row: T) => string,
  shown: (row: T) => boolean = () => true,
): Page<T> {
  const size = pageSize(first);
  const key = decodeCursor(after, LIST_CURSOR);
  let start = 0;
  if (key) {
    const index = all.findIndex((row) => idOf(row) === key[0]);
    if (index < 0) throw rowNotInList();
    start = index + 1;
  }
  const rest = all.slice(start).filter(shown);
  return pageFrom(rest.slice(0, size + 1), size, (row) => [idOf(row)], all.filter(shown).length);
}
