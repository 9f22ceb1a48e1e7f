import { DomainError } from './errors.js';
import { SESSION_NAME_MAX, nameWords } from './session-names.js';

/** The most words a session search may hold: each is one index range. */
export const SESSION_SEARCH_WORDS_MAX = 8;

/** What a sessions search looks for: an id prefix, and the starts of words of the name. */
export interface SessionSearch {
  /** The search as an id prefix (ids are lower-case [\w-]); null when it cannot start one. */
  idPrefix: string | null;
  /** Each must start a word of the session's name; empty for a search of no letters or digits. */
  words: string[];
}

/**
 * Reads the sessions list's search box: "3f2a" finds an id starting with it,
 * "refund work" the sessions whose name has a word starting "refund" and one
 * starting "work", case-insensitively. Null for a blank search (no filter).
 * TOO_LARGE past SESSION_NAME_MAX characters or
 * SESSION_SEARCH_WORDS_MAX words: no name is longer, and each word costs a
 * lookup.
 */
export function readSessionSearch(raw: string | null | undefined): SessionSearch | null {
  const text = (raw ?? '').trim();
  if (!text) return null;
  const length = [...text].length;
  if (length > SESSION_NAME_MAX) {
    throw new DomainError('TOO_LARGE', `search is ${length} characters; send at most ${SESSION_NAME_MAX} (no session name is longer): an id's start or a few words of the name.`, { field: 'search', length, limit: SESSION_NAME_MAX });
  }
  const words = nameWords(text);
  if (words.length > SESSION_SEARCH_WORDS_MAX) {
    throw new DomainError('TOO_LARGE', `search has ${words.length} words; send at most ${SESSION_SEARCH_WORDS_MAX}: the starts of a few words of the name find it.`, { field: 'search', count: words.length, limit: SESSION_SEARCH_WORDS_MAX });
  }
  const lower = text.toLowerCase();
  return { idPrefix: /^[a-z0-9-]+$/.test(lower) ? lower : null, words };
}
