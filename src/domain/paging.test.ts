import { describe, expect, it } from 'vitest';
import { refusal } from '../../test/fixtures/refusal.js';
import { ROW_CURSOR, SEARCH_CURSOR, decodeCursor, encodeCursor } from './paging.js';

describe('decodeCursor', () => {
  it('reads back what encodeCursor made', () => {
    expect(decodeCursor(encodeCursor([42]), ROW_CURSOR)).toEqual([42]);
    expect(decodeCursor(encodeCursor([3, 7]), SEARCH_CURSOR)).toEqual([3, 7]);
    expect(decodeCursor(null, ROW_CURSOR)).toBeNull();
  });

  it.each([
    ['NUL', '\u0000'],
    ['a real cursor with NUL after it', `${encodeCursor([1])}\u0000`],
    ['a real cursor with a space inside', `${encodeCursor([1]).slice(0, 2)} ${encodeCursor([1]).slice(2)}`],
    ['10,000 characters', 'A'.repeat(10_000)],
    ['a cursor of another list', encodeCursor([1, 2])],
  ])('refuses %s with BAD_USER_INPUT, saying what to send', (_name, cursor) => {
    const error = refusal(() => decodeCursor(cursor, ROW_CURSOR));
    expect(error.code).toBe('BAD_USER_INPUT');
    expect(error.message).toContain('Pass pageInfo.endCursor');
  });
});
