import { describe, expect, it } from 'vitest';
import { claimTtl, expiryAfter, isOpenWork, isSettled } from './claims.js';
import { refusal } from '../../test/fixtures/refusal.js';

describe('claim leases', () => {
  it('last 900 s unless told, 10..86400 whole seconds, and refuse anything else saying what to send', () => {
    expect(claimTtl(undefined)).toBe(900);
    expect(claimTtl(null)).toBe(900);
    expect(claimTtl(10)).toBe(10);
    expect(claimTtl(86_400)).toBe(86_400);
    for (const bad of [9, 86_401, 1.5, -1]) {
      const error = refusal(() => claimTtl(bad));
      expect(error.code).toBe('BAD_USER_INPUT');
      expect(error.message).toContain('10 to 86400');
    }
  });

  it('expire ttl seconds after the database time they start from', () => {
    expect(expiryAfter('2026-12-01T20:49:19.123Z', 900)).toBe('2026-12-01T21:04:19.123Z');
  });

  it('hold only on open work; settled work blocks nothing', () => {
    expect(['PENDING', 'IN_PROGRESS', 'DONE', 'DROPPED', 'BLOCKED', 'FAILED'].filter((s) => isOpenWork(s as never))).toEqual(['PENDING', 'IN_PROGRESS']);
    expect(['PENDING', 'IN_PROGRESS', 'DONE', 'DROPPED', 'BLOCKED', 'FAILED'].filter((s) => isSettled(s as never))).toEqual(['DONE', 'DROPPED']);
  });
});
