import { describe, expect, it } from 'vitest';
import { nameWords } from './session-names.js';
import { readSessionSearch } from './session-search.js';

describe('the sessions search', () => {
  it("reads a name's words as letters and digits, lower-cased, each once", () => {
    expect(nameWords('Refund-worker #7, refund')).toEqual(['refund', 'worker', '7']);
    expect(nameWords('Überprüfung ＡＢＣ')).toEqual(['überprüfung', 'abc']);
    expect(nameWords('—')).toEqual([]);
  });

  it('is an id start when it can be one, and the words of a name always', () => {
    expect(readSessionSearch(' 3F2A-b ')).toEqual({ idPrefix: '3f2a-b', words: ['3f2a', 'b'] });
    expect(readSessionSearch('refund work')).toEqual({ idPrefix: null, words: ['refund', 'work'] });
    expect(readSessionSearch('%_')).toEqual({ idPrefix: null, words: [] });
    expect(readSessionSearch('   ')).toBeNull();
    expect(readSessionSearch(null)).toBeNull();
  });

  it('refuses what no name holds, saying what to send', () => {
    expect(() => readSessionSearch('x'.repeat(121))).toThrow(/search is 121 characters; send at most 120/);
    expect(() => readSessionSearch('a b c d e f g h i')).toThrow(/search has 9 words; send at most 8/);
    expect(readSessionSearch('a b c d e f g h')!.words).toHaveLength(8);
  });
});
