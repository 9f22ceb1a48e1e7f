import { DomainError } from './errors.js';

const SEARCH_QUERY_MAX = 1000;

/** A word: a run of letters, digits and the marks that belong to them (a Devanagari vowel sign, a combining accent). */
const WORD = /[\p{L}\p{N}\p{M}]+/gu;

/** The words of a text, as search cuts both documents and queries: "jane.doe@example.com" → jane, doe, example, com. */
export function wordsOf(text: string): string[] {
  return text.match(WORD) ?? [];
}

/** "Crème brûlée" → "Creme brulee": Latin accents folded (FTS5's remove_diacritics), other scripts' marks kept. */
export function foldAccents(text: string): string {
  return text.normalize('NFD').replace(/[\u0300-\u036f]/g, '').normalize('NFC');
}
const SEARCH_WORDS_MAX = 32;

/**
 * Search takes words, not a query language: the query is cut into words
 * ("webhook's" → webhook, s), as documents are, so any string is safe and
 * reads alike on each database.
 * EMPTY_TEXT when nothing is left once trimmed; TOO_LARGE past 1,000
 * characters or 32 words. A query of punctuation only has no words: it
 * matches nothing.
 */
export function searchWords(query: string): string[] {
  const text = query.trim();
  if (text === '') throw new DomainError('EMPTY_TEXT', 'query is empty once trimmed; send one or more words to look for.', { field: 'query' });
  if (text.length > SEARCH_QUERY_MAX) {
    throw new DomainError('TOO_LARGE', `query is ${text.length} characters; the limit is ${SEARCH_QUERY_MAX}. Search with a few distinctive words.`, { field: 'query', length: text.length, limit: SEARCH_QUERY_MAX });
  }
  const words = wordsOf(text);
  if (words.length > SEARCH_WORDS_MAX) {
    throw new DomainError('TOO_LARGE', `query has ${words.length} words; the limit is ${SEARCH_WORDS_MAX}. Search with a few distinctive words.`, { field: 'query', count: words.length, limit: SEARCH_WORDS_MAX });
  }
  return words;
}
