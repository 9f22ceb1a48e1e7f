import { describe, expect, it } from 'vitest';
import { decodeChangeCursor, encodeChangeCursor } from './change-cursor.js';
import { isDomainError } from './errors.js';

function refusal(cursor: string): string {
  try {
    decodeChangeCursor(cursor);
  } catch (error) {
    if (isDomainError(error)) return error.code;
    throw error;
  }
  return 'accepted';
}

describe('the change-log cursor', () => {
  it('reads back the id it was made from, and says nothing readable about it', () => {
    for (const id of [0, 1, 42, 2_147_483_648, Number.MAX_SAFE_INTEGER]) {
      const cursor = encodeChangeCursor(id);
      expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(cursor).not.toContain(String(id));
      expect(decodeChangeCursor(cursor)).toBe(id);
    }
    expect(decodeChangeCursor(null)).toBeNull();
    expect(decodeChangeCursor(undefined)).toBeNull();
  });

  it('refuses what it did not make with BAD_USER_INPUT: a bare id, another list\'s cursor, other tags, padding, junk', () => {
    const made = (text: string) => Buffer.from(text).toString('base64url');
    for (const cursor of [
      '', '42', made('42'), made('[42]'), made('chg1:'), made('chg1:-1'), made('chg1:007'), made('chg1:1.5'), made('chg2:42'),
      made('chg1:99999999999999999'), `${encodeChangeCursor(42)}=`, `${encodeChangeCursor(42)}%`, 'x'.repeat(10_000), made('chg1:42\n'),
    ]) {
      expect(refusal(cursor), cursor).toBe('BAD_USER_INPUT');
    }
  });

  it('says what to send instead', () => {
    expect(() => decodeChangeCursor('nope')).toThrow(/Pass the id \(or pageInfo\.endCursor\) of a change you read from this log, or omit after/);
  });
});
