import { DomainError } from './errors.js';

export const SEARCH_QUERY_MAX = 1000;
export const SEARCH_WORDS_MAX = 32;

/**
 * Search takes words, not a query language: the query is cut into runs of
 * letters and digits ("webhook's" → webhook, s), the same way both databases'
 * tokenizers cut documents, so any string is safe and reads alike on each.
 * EMPTY_TEXT when nothing is left once trimmed; TOO_LARGE past 1,000
 * characters or 32 words. A query of punctuation only has no words: it
 * matches nothing.
 */
export function searchWords(query: string): string[] {
  const text = query.trim();
  if (text === '') throw new DomainError('EMPTY_TEXT', 'query is empty once trimmed; send one or more words to look for.');
  if (text.length > SEARCH_QUERY_MAX) {
    throw new DomainError('TOO_LARGE', `query is ${text.length} characters; the limit is ${SEARCH_QUERY_MAX}. Search with a few distinctive words.`);
  }
  const words = text.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  if (words.length > SEARCH_WORDS_MAX) {
    throw new DomainError('TOO_LARGE', `query has ${words.length} words; the limit is ${SEARCH_WORDS_MAX}. Search with a few distinctive words.`);
  }
  return words;
}
