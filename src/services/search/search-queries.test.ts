import { describe, expect, it } from 'vitest';
import { searchableText, tsQuery } from './postgres-search-index.js';
import { fts5Query } from './sqlite-search-index.js';

describe('fts5Query', () => {
  it('quotes every word as a prefix string, so no input is FTS5 syntax', () => {
    expect(fts5Query(['webhook', 'NEAR', 'quoted'])).toBe('"webhook"* "NEAR"* "quoted"*');
  });
});

describe('tsQuery', () => {
  it('folds accents and case, and joins prefixes with AND or OR', () => {
    expect(tsQuery(['Crème', 'brûlée', 'v2'])).toBe('creme:* & brulee:* & v2:*');
    expect(tsQuery(['alpha', 'beta'], '|')).toBe('alpha:* | beta:*');
  });

  it('matches nothing when nothing searchable is left', () => {
    expect(tsQuery(['!!', '&|'])).toBeNull();
  });
});

describe('searchableText', () => {
  it('cuts addresses, hosts and versions into the words a query has', () => {
    expect(searchableText('Mail jane.doe@example.com, see https://example.org/docs v1.2.3 foo-bar')).toBe(
      'Mail jane doe example com see https example org docs v1 2 3 foo bar',
    );
  });

  it('keeps the marks of other scripts inside their words', () => {
    expect(searchableText('हिन्दी भाषा')).toBe('हिन्दी भाषा');
    expect(searchableText('Ångström café')).toBe('Angstrom cafe');
  });
});
