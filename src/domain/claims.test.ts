import { describe, expect, it } from 'vitest';
import { checkDependencyCaps, DEPENDENCIES_PER_ITEM_MAX, DEPENDENCIES_PER_TASK_MAX, WAITERS_PER_ITEM_MAX } from './dependencies.js';
import { claimTtl, expiryAfter, fenceItemChange, isOpenWork, isSettled } from './claims.js';
import { refusal } from '../../test/fixtures/refusal.js';

describe('claim leases', () => {
  it('last 900 s unless told, 1..3600 whole seconds (at most an hour), and refuse anything else saying what to send', () => {
    expect(claimTtl(undefined)).toBe(900);
    expect(claimTtl(null)).toBe(900);
    expect(claimTtl(1)).toBe(1);
    expect(claimTtl(3_600)).toBe(3_600);
    for (const bad of [0, 3_601, 86_400, 1.5, -1]) {
      const error = refusal(() => claimTtl(bad));
      expect(error.code).toBe('BAD_USER_INPUT');
      expect(error.message).toContain('1 to 3600');
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

describe('claims fence', () => {
  const now = '2026-12-01T20:00:00.000Z';
  const live = (sessionId: string, takenFrom: string | null = null) => ({ sessionId, expiresAt: '2026-12-01T20:15:00.000Z', takenFrom });
  const ended = (sessionId: string, takenFrom: string | null = null) => ({ sessionId, expiresAt: '2026-12-01T19:59:00.000Z', takenFrom });
  const pass = { lapsed: false, overrode: null };

  it('let a person, the holder, and anyone on an unclaimed item through', () => {
    expect(fenceItemChange('7', null, live('b'), now, false)).toEqual(pass);
    expect(fenceItemChange('7', 'b', live('b'), now, false)).toEqual(pass);
    expect(fenceItemChange('7', 'a', null, now, false)).toEqual(pass);
    expect(fenceItemChange('7', 'a', ended('b'), now, false)).toEqual(pass);
  });

  it('let a holder whose lease ran out, with no one else on the item, keep working, and say so', () => {
    expect(fenceItemChange('7', 'a', ended('a'), now, false)).toEqual({ lapsed: true, overrode: null });
  });

  it("refuse another session's claim for how long it holds, and a taken-over session even after the taker's claim ended", () => {
    const held = refusal(() => fenceItemChange('7', 'a', live('b'), now, false));
    expect(held.code).toBe('CLAIMED');
    expect(held.message).toContain('claimed by session b for 900 s (until 2026-12-01T20:15:00.000Z)');
    const takenOver = refusal(() => fenceItemChange('7', 'a', live('b', 'a'), now, false));
    expect(takenOver.message).toContain('lapsed and the work was taken over: session b holds it for 900 s');
    const finished = refusal(() => fenceItemChange('7', 'a', ended('b', 'a'), now, false));
    expect(finished.code).toBe('CLAIMED');
    expect(finished.message).toContain('taken over by session b');
  });

  it('let force through, naming whose claim it overrode', () => {
    expect(fenceItemChange('7', 'a', live('b'), now, true)).toEqual({ lapsed: false, overrode: 'b' });
    expect(fenceItemChange('7', 'a', ended('b', 'a'), now, true)).toEqual({ lapsed: false, overrode: 'b' });
  });
});

describe('dependency caps', () => {
  const edge = (item: number, dependsOn: number) => ({ item: String(item), dependsOn: String(dependsOn) });

  it('refuse what one item waits by, what waits for one item, and a task past its total, naming the cap', () => {
    const waits = Array.from({ length: DEPENDENCIES_PER_ITEM_MAX + 1 }, (_, i) => edge(1, i + 2));
    expect(() => checkDependencyCaps('9', waits.slice(0, -1), waits.slice(0, -1))).not.toThrow();
    expect(refusal(() => checkDependencyCaps('9', waits, waits.slice(-1))).message).toContain(`at most ${DEPENDENCIES_PER_ITEM_MAX}`);
    const waiters = Array.from({ length: WAITERS_PER_ITEM_MAX + 1 }, (_, i) => edge(i + 2, 1));
    expect(refusal(() => checkDependencyCaps('9', waiters, waiters.slice(-1))).message).toContain(`at most ${WAITERS_PER_ITEM_MAX} may wait for one item`);
    const wide = Array.from({ length: DEPENDENCIES_PER_TASK_MAX + 1 }, (_, i) => edge(i % 500, 1000 + (i % 499)));
    const total = refusal(() => checkDependencyCaps('9', wide, wide.slice(-1)));
    expect(total.code).toBe('TOO_LARGE');
    expect(total.message).toContain(`at most ${DEPENDENCIES_PER_TASK_MAX}`);
  });

  it('never refuse a change that adds no edge', () => {
    const many = Array.from({ length: DEPENDENCIES_PER_TASK_MAX + 5 }, (_, i) => edge(1, i + 2));
    expect(() => checkDependencyCaps('9', many, [])).not.toThrow();
  });
});
