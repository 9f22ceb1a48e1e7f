import { describe, expect, it } from 'vitest';
import { foldAccents, tsQuery } from './postgres-search-index.js';
import { fts5Query } from './sqlite-search-index.js';

describe('fts5Query', () => {
  it('quotes every word as a prefix string, so no input is FTS5 syntax', () => {
    expect(fts5Query(['webhook', 'NEAR(', '"quoted"', '-x', '*'])).toBe('"webhook"* "NEAR("* """quoted"""* "-x"* "*"*');
  });
});

describe('tsQuery', () => {
  it('keeps letters and digits of each word, folds accents and case, and ANDs prefixes', () => {
    expect(tsQuery(['Crème', 'brûlée:*', 'v2'])).toBe('creme:* & brulee:* & v2:*');
  });

  it('matches nothing when nothing searchable is left', () => {
    expect(tsQuery(['!!', '&|'])).toBeNull();
  });
});

describe('foldAccents', () => {
  it('drops combining marks only', () => {
    expect(foldAccents('Ångström naïve café 東京')).toBe('Angstrom naive cafe 東京');
  });
});
