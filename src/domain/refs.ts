/**
 * [[#id]] references in free text (goal, brief fields, note bodies, comments).
 *
 * Free text cites an item by its id, never by its number: ids never move or get
 * reused, while numbers close up when an item is deleted or moved. The raw text
 * keeps the token as written; reading it back renders the item's current place
 * and label.
 */
import { refuse } from './errors.js';
import { numberLiveItems } from './ordering.js';

const TOKEN_SOURCE = String.raw`\[\[#(\d+)\]\]`;

/**
 * A fresh global pattern for one [[#id]] token (group 1 is the id). Each call
 * returns a new RegExp, so no caller can inherit another's `lastIndex`.
 */
export function refTokenPattern(): RegExp {
  return new RegExp(TOKEN_SOURCE, 'g');
}

/**
 * One global pattern for `String.prototype.replace`, which starts a global
 * pattern at lastIndex 0 and leaves it there, whoever used it before: safe to
 * share there, and only there.
 */
const TOKENS_TO_REPLACE = refTokenPattern();

/** The token's opening; an id of ASCII digits and `]]` close it. */
const TOKEN_OPEN = '[[#';
/** Past this many distinct ids a Set tells seen ones apart; below it, the list itself (most texts cite a few). */
const LIST_SCAN_MAX = 16;

/**
 * Distinct ids cited, as strings, in order of first appearance. Scans for
 * the token's opening and reads the digits after it, the same tokens as
 * refTokenPattern matches: a dashboard read parses every text of its notes
 * and comments, and a fresh RegExp with its match iterator per text was
 * 3.4 % of that read's profile (parseRefs and refTokenPattern, self time).
 */
export function parseRefs(text: string): string[] {
  let at = text.indexOf(TOKEN_OPEN);
  if (at < 0) return [];
  const ids: string[] = [];
  let seen: Set<string> | null = null;
  while (at >= 0) {
    const start = at + TOKEN_OPEN.length;
    let end = start;
    for (let code = text.charCodeAt(end); code >= 48 && code <= 57; code = text.charCodeAt(++end));
    if (end === start || text.charCodeAt(end) !== 93 || text.charCodeAt(end + 1) !== 93) {
      at = text.indexOf(TOKEN_OPEN, at + 1);
      continue;
    }
    const id = text.slice(start, end);
    if (seen ? !seen.has(id) : !ids.includes(id)) {
      ids.push(id);
      if (seen) seen.add(id);
      else if (ids.length > LIST_SCAN_MAX) seen = new Set(ids);
    }
    at = text.indexOf(TOKEN_OPEN, end + 2);
  }
  return ids;
}

/**
 * True when a label carries a token (labels never may). Any `[[#` opening
 * counts, not only a well-formed token: a near miss like `[[# 12]]` in a label
 * is an attempt to cite, and storing it would read like a broken reference.
 */
export function hasRefToken(text: string): boolean {
  return text.includes('[[#');
}

/**
 * A word "i" followed by digits, bounded by anything that is not a letter,
 * digit or underscore in any script (so "i18n", "éi3" and "pi3" are not
 * references, while "(i3)" and "I3," are).
 */
const BARE_REFERENCE = /(?<![\p{L}\p{N}_])i\d+(?![\p{L}\p{N}_])/iu;

/**
 * The first bare item reference in free text outside tokens, e.g. "i3", or
 * null. Returned as written, so a message can quote what the sender typed.
 */
export function findBareReference(text: string): string | null {
  // Tokens become a space, not nothing, so the words on either side of a
  // token never fuse into one.
  const outsideTokens = text.replace(TOKENS_TO_REPLACE, ' ');
  return BARE_REFERENCE.exec(outsideTokens)?.[0] ?? null;
}

/** What a cited id names now (the contract's ItemRef). */
export interface RefTarget {
  id: string;
  /** Current 1-based place among live items; null once deleted. */
  number: number | null;
  /** Current label, kept after deletion. */
  text: string;
  deleted: boolean;
}

/**
 * What each item of a task reads as now, keyed by id: its place among the
 * live items (null once deleted), its label, and whatever else of the item
 * the caller keeps beside them (`extra`, e.g. its state).
 */
export function refTargetsOf<T extends { id: number | string; text: string; deleted: boolean }, E extends object = object>(
  items: readonly T[],
  extra: (item: T) => E = () => ({}) as E,
): Map<string, RefTarget & E> {
  const numbers = numberLiveItems(items.map((item) => ({ id: String(item.id), deleted: item.deleted })));
  // `extra` is spread last: V8 gives an object whose literal starts with a spread a shape of its own, about
  // 100 times slower to build than one whose spread comes after the fixed keys.
  return new Map(items.map((item) => [String(item.id), { id: String(item.id), number: numbers.get(String(item.id)) ?? null, text: item.text, deleted: item.deleted, ...extra(item) }]));
}

/** The distinct items `texts` cite, in order of first appearance, as `targets` read now; an id not in `targets` stays out. */
export function refsCitedIn<T extends RefTarget>(texts: readonly (string | null | undefined)[], targets: ReadonlyMap<string, T>): T[] {
  const seen = new Set<string>();
  const refs: T[] = [];
  for (const text of texts) {
    if (!text) continue;
    for (const id of parseRefs(text)) {
      const target = targets.get(id);
      if (seen.has(id) || !target) continue;
      seen.add(id);
      refs.push({ ...target });
    }
  }
  return refs;
}

/**
 * Replaces each token with `[#3 Label]` (number = current place) or
 * `[deleted item: Label]` when deleted; a token whose id is not in the map is
 * left as written, so a missing lookup never hides what the author wrote.
 */
export function renderRefs(text: string, targets: ReadonlyMap<string, RefTarget>): string {
  return text.replace(TOKENS_TO_REPLACE, (token: string, id: string) => {
    const target = targets.get(id);
    if (!target) return token;
    // An item without a place is not in the live list, which is what "deleted"
    // tells the reader; a number without a place would be a lie.
    if (target.deleted || target.number === null) return `[deleted item: ${target.text}]`;
    return `[#${target.number} ${target.text}]`;
  });
}

/**
 * Distinct items one free text may cite. A text's `refs` list is read back
 * with every answer that asks for it, so it needs a bound the query check can
 * count on (a 20,000-character text could otherwise cite thousands).
 */
export const REFS_PER_TEXT_MAX = 100;

/** How many of a task's ids an UNKNOWN_REFERENCE message lists to choose from. */
const IDS_SHOWN = 10;

/**
 * Validates free text of one task: a bare word like "i3" is refused
 * (BARE_ITEM_REFERENCE), and so is a token citing an id that is not an item of
 * this task (UNKNOWN_REFERENCE). Deleted items stay citable, so `taskItemIds`
 * holds them too. `field` names the field for the message (e.g. "goal").
 */
export function checkFreeText(text: string, field: string, taskItemIds: ReadonlySet<string>): void {
  checkNoBareReference(text, field);
  const cited = parseRefs(text);
  if (cited.length > REFS_PER_TEXT_MAX) {
    throw refuse('REFS_PER_TEXT', { field, count: cited.length, limit: REFS_PER_TEXT_MAX });
  }
  const unknown = cited.filter((id) => !taskItemIds.has(id));
  if (unknown.length > 0) {
    throw refuse('UNKNOWN_REFERENCE', { field, unknownIds: unknown, itemIds: [...taskItemIds].slice(0, IDS_SHOWN), itemCount: taskItemIds.size });
  }
}

/** BARE_ITEM_REFERENCE for a bare word like "i3": free text cites items only as [[#id]]. */
export function checkNoBareReference(text: string, field: string): void {
  const bare = findBareReference(text);
  if (bare !== null) throw refuse('BARE_REFERENCE', { field, word: bare });
}
