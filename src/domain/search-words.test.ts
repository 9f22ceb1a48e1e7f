import { describe, expect, it } from 'vitest';
import { refusal } from '../../test/fixtures/refusal.js';
import { searchWords } from './search-words.js';

describe('searchWords', () => {
  it('cuts the query into runs of letters and digits', () => {
    expect(searchWords("  webhook's NEAR(x) \"quoted\" -minus *star 東京 v2 ")).toEqual(['webhook', 's', 'NEAR', 'x', 'quoted', 'minus', 'star', '東京', 'v2']);
  });

  it('leaves no words from punctuation alone', () => {
    expect(searchWords('"*( - )')).toEqual([]);
  });

  it('refuses an empty query, and one too long or with too many words', () => {
    expect(refusal(() => searchWords('   ')).code).toBe('EMPTY_TEXT');
    expect(refusal(() => searchWords('a'.repeat(1001))).code).toBe('TOO_LARGE');
    expect(refusal(() => searchWords(Array.from({ length: 33 }, (_, i) => `w${i}`).join(' '))).code).toBe('TOO_LARGE');
    expect(searchWords(Array.from({ length: 32 }, (_, i) => `w${i}`).join(' '))).toHaveLength(32);
  });
});
