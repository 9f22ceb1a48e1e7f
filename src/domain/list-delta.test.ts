import { describe, expect, it } from 'vitest';
import { applyDelta, CHAIN_LENGTH_MAX, continueChain, DELTA_WEIGHT_MIN, deltaBetween, type ChainPlace } from './list-delta.js';
import type { Snapshot } from './list-diff.js';
import type { ItemState } from './states.js';

function item(id: string, text = `Item ${id}`, state: ItemState = 'PENDING'): Snapshot {
  return { id, text, state };
}

function list(count: number): Snapshot[] {
  return Array.from({ length: count }, (_, index) => item(String(index + 1)));
}

/** The delta from before to after, checked to rebuild after exactly. */
function roundTrip(before: Snapshot[], after: Snapshot[]) {
  const delta = deltaBetween(before, after);
  expect(applyDelta(before, delta)).toEqual(after);
  return delta;
}

describe('deltaBetween and applyDelta', () => {
  it('say an unchanged list in one run, and an empty one in none', () => {
    expect(roundTrip(list(500), list(500))).toEqual([[0, 500]]);
    expect(roundTrip([], [])).toEqual([]);
    expect(roundTrip(list(3), [])).toEqual([]);
  });

  it('write out only the item whose state or text changed, whatever the list length', () => {
    const before = list(500);
    const after = before.map((entry) => (entry.id === '250' ? { ...entry, state: 'DONE' as const } : entry));
    expect(roundTrip(before, after)).toEqual([[0, 249], item('250', 'Item 250', 'DONE'), [250, 250]]);
    const renamed = before.map((entry) => (entry.id === '1' ? { ...entry, text: 'Renamed' } : entry));
    expect(roundTrip(before, renamed)).toEqual([item('1', 'Renamed'), [1, 499]]);
  });

  it('take moved, kept and removed items from the list before by place, and new ones whole', () => {
    const before = list(6);
    const [a, b, c, d, e, f] = before;
    expect(roundTrip(before, [f!, a!, b!, c!, d!, e!])).toEqual([[5, 1], [0, 5]]);
    expect(roundTrip(before, [a!, b!, d!, e!, f!])).toEqual([[0, 2], [3, 3]]);
    expect(roundTrip(before, [a!, item('7'), b!, c!, d!, e!, f!])).toEqual([[0, 1], item('7'), [1, 5]]);
    expect(roundTrip(before, [item('9'), item('8')])).toEqual([item('9'), item('8')]);
    expect(roundTrip([], [a!, b!])).toEqual([a, b]);
  });

  it('rebuild a long chain of random changes exactly', () => {
    let current = list(40);
    let next = 41;
    const states: ItemState[] = ['PENDING', 'IN_PROGRESS', 'DONE', 'BLOCKED'];
    for (let step = 0; step < 300; step += 1) {
      const after = [...current];
      const at = (step * 7919) % Math.max(after.length, 1);
      switch (step % 5) {
        case 0: if (after.length) after[at] = { ...after[at]!, state: states[step % states.length]! }; break;
        case 1: after.splice(at, 0, item(String(next++))); break;
        case 2: if (after.length > 1) after.push(...after.splice(at, 1)); break;
        case 3: if (after.length > 5) after.splice(at, 1); break;
        default: if (after.length) after[at] = { ...after[at]!, text: `Step ${step}` };
      }
      roundTrip(current, after);
      current = after;
    }
  });

  it('refuse a part that reaches past the list before it (a broken chain)', () => {
    expect(() => applyDelta(list(2), [[1, 2]])).toThrow(/outside the 2-item list/);
    expect(() => applyDelta(list(2), [[-1, 1]])).toThrow();
  });
});

describe('continueChain', () => {
  it('starts a task\'s history with a checkpoint', () => {
    expect(continueChain(null, 10, 5_000)).toEqual({ length: 0, bytes: 0 });
  });

  it('charges each delta at least DELTA_WEIGHT_MIN and checkpoints once the chain outweighs the whole list', () => {
    let place: ChainPlace = { length: 0, bytes: 0 };
    const places: ChainPlace[] = [];
    for (let event = 0; event < 12; event += 1) places.push((place = continueChain(place, 60, 5 * DELTA_WEIGHT_MIN)));
    expect(places.map((entry) => entry.length)).toEqual([1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 0]);
    expect(places[4]!.bytes).toBe(5 * DELTA_WEIGHT_MIN);
  });

  it('checkpoints at once when a delta would weigh more than the whole list', () => {
    expect(continueChain({ length: 0, bytes: 0 }, 3_000, 2_000)).toEqual({ length: 0, bytes: 0 });
  });

  it('keeps a chain to CHAIN_LENGTH_MAX deltas however big the list', () => {
    let place: ChainPlace = { length: 0, bytes: 0 };
    let longest = 0;
    for (let event = 0; event < 3 * CHAIN_LENGTH_MAX; event += 1) {
      place = continueChain(place, 50, 10_000_000);
      longest = Math.max(longest, place.length);
    }
    expect(longest).toBe(CHAIN_LENGTH_MAX);
  });

  it('spends about the same bytes per event on checkpoints for a list of 50 items as for one of 500', () => {
    const perEvent = (listBytes: number) => {
      let place: ChainPlace = { length: 0, bytes: 0 };
      let spent = 0;
      const events = 2_000;
      for (let event = 0; event < events; event += 1) {
        place = continueChain(place, 80, listBytes);
        spent += place.length === 0 ? listBytes : 80;
      }
      return spent / events;
    };
    const small = perEvent(50 * 55);
    const large = perEvent(500 * 55);
    expect(large).toBeLessThan(1.5 * small);
    expect(large).toBeLessThan(2 * DELTA_WEIGHT_MIN);
  });
});
