import { describe, expect, it } from 'vitest';
import { CoalescedPasses } from './coalesced.js';

/** Passes that end when the test says, numbered as they begin. */
function controlledPasses() {
  const ends: (() => void)[] = [];
  const passes = new CoalescedPasses(() => new Promise<void>((resolve) => { ends.push(resolve); }), () => true);
  return { passes, began: () => ends.length, end: (n: number) => ends[n]!() };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('CoalescedPasses.request', () => {
  it('resolves once the pass it began has ended', async () => {
    const { passes, began, end } = controlledPasses();
    let done = false;
    void passes.request().then(() => { done = true; });
    expect(began()).toBe(1);
    await tick();
    expect(done).toBe(false);
    end(0);
    await tick();
    expect(done).toBe(true);
  });

  it('during a pass, resolves only once the one pass after it has ended, shared by every call meanwhile', async () => {
    const { passes, began, end } = controlledPasses();
    void passes.request();
    const resolved: string[] = [];
    void passes.request().then(() => resolved.push('first'));
    void passes.request().then(() => resolved.push('second'));
    expect(began()).toBe(1);
    end(0);
    await tick();
    // The pass under way ended: one more began for both calls, and neither is answered before it ends.
    expect(began()).toBe(2);
    expect(resolved).toEqual([]);
    end(1);
    await tick();
    expect(resolved).toEqual(['first', 'second']);
    expect(began()).toBe(2);
  });

  it('resolves at once when no pass may run', async () => {
    const passes = new CoalescedPasses(() => new Promise<void>(() => undefined), () => false);
    await expect(passes.request()).resolves.toBeUndefined();
  });
});
