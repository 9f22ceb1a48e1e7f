/**
 * What changed between two versions of a list: the `changes` of a history
 * event. (Which items a whole-list write keeps is whole-list.ts.)
 */
import type { ItemState } from './states.js';

/** One item as a version of the list holds it. */
export interface Snapshot {
  id: string;
  text: string;
  state: ItemState;
}

/** The list's own changes, and a claim taken or released on an item (from/to: the holding session). */
type ChangeKind = 'ADDED' | 'REMOVED' | 'STATE' | 'RENAMED' | 'MOVED' | 'CLAIMED' | 'RELEASED' | 'OVERRIDDEN';

export interface ItemChange {
  itemId: string;
  kind: ChangeKind;
  /** The item's text after the change (before it, for REMOVED). */
  text: string;
  from: string | null;
  to: string | null;
}

/**
 * Changes from `before` to `after`, matched by id. ADDED (to = state), REMOVED
 * (from = state), STATE (from/to = states), RENAMED (from/to = texts), MOVED
 * (from/to = 1-based positions in each list, as strings).
 *
 * Order: the order of `after` (each item's changes as RENAMED, STATE, MOVED),
 * then REMOVED ones in `before` order.
 */
export function diffSnapshots(before: readonly Snapshot[], after: readonly Snapshot[]): ItemChange[] {
  const beforeIndex = new Map(before.map((item, index) => [item.id, index]));
  const afterIds = new Set(after.map((item) => item.id));
  const moved = movedIds(after, beforeIndex);
  const changes: ItemChange[] = [];

  after.forEach((item, index) => {
    const was = beforeIndex.get(item.id);
    if (was === undefined) {
      changes.push({ itemId: item.id, kind: 'ADDED', text: item.text, from: null, to: item.state });
      return;
    }
    const old = before[was]!;
    if (old.text !== item.text) {
      changes.push({ itemId: item.id, kind: 'RENAMED', text: item.text, from: old.text, to: item.text });
    }
    if (old.state !== item.state) {
      changes.push({ itemId: item.id, kind: 'STATE', text: item.text, from: old.state, to: item.state });
    }
    if (moved.has(item.id)) {
      changes.push({ itemId: item.id, kind: 'MOVED', text: item.text, from: String(was + 1), to: String(index + 1) });
    }
  });

  for (const old of before) {
    if (!afterIds.has(old.id)) {
      changes.push({ itemId: old.id, kind: 'REMOVED', text: old.text, from: old.state, to: null });
    }
  }
  return changes;
}

/**
 * Ids of the items that moved. An insertion or deletion shifts every later
 * item's position without anyone having moved it, so positions alone say
 * little. Instead, take the items present in both lists, in `after` order, and
 * keep the longest run whose `before` order is already increasing: those stood
 * still relative to each other. Everything else is the fewest items whose
 * moving explains the new order.
 */
function movedIds(after: readonly Snapshot[], beforeIndex: ReadonlyMap<string, number>): Set<string> {
  const common = after.filter((item) => beforeIndex.has(item.id));
  const sequence = common.map((item) => beforeIndex.get(item.id)!);
  const still = longestIncreasing(sequence);
  const moved = new Set<string>();
  common.forEach((item, position) => {
    if (!still.has(position)) moved.add(item.id);
  });
  return moved;
}

/**
 * Positions (into `sequence`) of one longest strictly increasing subsequence,
 * in O(n log n): `tails[k]` is the position ending the best run of length k+1.
 * Where two runs are equally long, the one kept ends on the smaller value, so
 * of two items that swapped places the one now in front is reported as moved,
 * e.g. [A, B] -> [B, A] moves B, and [A, B, C] -> [C, A, B] moves only C.
 */
function longestIncreasing(sequence: readonly number[]): Set<number> {
  const tails: number[] = [];
  const previous: number[] = new Array<number>(sequence.length).fill(-1);
  sequence.forEach((value, position) => {
    let low = 0;
    let high = tails.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (sequence[tails[middle]!]! < value) low = middle + 1;
      else high = middle;
    }
    if (low > 0) previous[position] = tails[low - 1]!;
    tails[low] = position;
  });
  const kept = new Set<number>();
  for (let at = tails.length > 0 ? tails[tails.length - 1]! : -1; at !== -1; at = previous[at]!) kept.add(at);
  return kept;
}
