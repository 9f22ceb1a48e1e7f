import { describe, expect, it } from 'vitest';
import { WriteLock } from './write-lock.js';

describe('WriteLock', () => {
  it('runs turns one at a time, in the order they asked', async () => {
    const lock = new WriteLock();
    const order: string[] = [];
    let open = 0;
    const turn = (name: string) => lock.run(async () => {
      open += 1;
      expect(open).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 5));
      order.push(name);
      open -= 1;
    });
    await Promise.all([turn('a'), turn('b'), turn('c')]);
    expect(order).toEqual(['a', 'b', 'c']);
  });

  it('puts a `first` turn (the WAL restart) ahead of the turns still waiting, never into the one running', async () => {
    const lock = new WriteLock();
    const order: string[] = [];
    let releaseRunning!: () => void;
    const running = lock.run(() => new Promise<void>((resolve) => { releaseRunning = () => { order.push('running'); resolve(); }; }));
    const queued = [lock.run(async () => { order.push('queued 1'); }), lock.run(async () => { order.push('queued 2'); })];
    const first = lock.run(async () => { order.push('first'); }, true);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(order).toEqual([]);
    releaseRunning();
    await Promise.all([running, first, ...queued]);
    expect(order).toEqual(['running', 'first', 'queued 1', 'queued 2']);
  });
});
