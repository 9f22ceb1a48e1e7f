/**
 * How a history row stores the list after its change: whole (a checkpoint),
 * or as a delta from the list of the event before it. A delta names the runs
 * of the list before that stand unchanged and spells out only the items that
 * are new or changed, so its size follows what changed, not the list's
 * length: a state change on a 500-item list is three parts. The list after
 * an event is rebuilt from the nearest checkpoint before it, and
 * `continueChain` decides when the next row is a checkpoint so that a
 * rebuild reads a bounded number of rows and bytes.
 */
import type { Snapshot } from './list-diff.js';

/** `count` items of the list before, from index `start`, in their order there; or one item as it now stands. */
export type DeltaPart = readonly [start: number, count: number] | Snapshot;

/** The list after an event, as parts that concatenate to it. */
export type ListDelta = readonly DeltaPart[];

/**
 * The delta from `before` to `after`: each item of `after` that is in
 * `before` unchanged (same id, text and state) is taken from there, runs of
 * neighbours as one part; every other item is written out.
 */
export function deltaBetween(before: readonly Snapshot[], after: readonly Snapshot[]): DeltaPart[] {
  const beforeIndex = new Map(before.map((item, index) => [item.id, index]));
  const parts: DeltaPart[] = [];
  let run: [number, number] | null = null;
  for (const item of after) {
    const at = beforeIndex.get(item.id);
    const old = at === undefined ? undefined : before[at]!;
    if (at === undefined || old!.text !== item.text || old!.state !== item.state) {
      run = null;
      parts.push({ id: item.id, text: item.text, state: item.state });
    } else if (run && run[0] + run[1] === at) {
      run[1] += 1;
    } else {
      run = [at, 1];
      parts.push(run);
    }
  }
  return parts;
}

/** The list a delta describes, given the list before it. A part reaching past `before` means the chain is broken: that throws. */
export function applyDelta(before: readonly Snapshot[], delta: ListDelta): Snapshot[] {
  const after: Snapshot[] = [];
  for (const part of delta) {
    if (!Array.isArray(part)) {
      after.push(part as Snapshot);
      continue;
    }
    const [start, count] = part as readonly [number, number];
    if (!Number.isInteger(start) || !Number.isInteger(count) || start < 0 || count < 1 || start + count > before.length) {
      throw new Error(`history delta part [${start}, ${count}] is outside the ${before.length}-item list before it`);
    }
    for (let index = start; index < start + count; index += 1) after.push(before[index]!);
  }
  return after;
}

/**
 * Where a history row stands in its chain: how many deltas since the last
 * checkpoint (0: the row is a checkpoint) and their weight in bytes.
 */
export interface ChainPlace {
  length: number;
  bytes: number;
}

/**
 * The most deltas after a checkpoint: a rebuild reads at most this many rows
 * besides the checkpoint, whatever the list.
 */
export const CHAIN_LENGTH_MAX = 100;

/**
 * The least a delta weighs in the chain, in bytes, however small it is.
 * Checkpoints cost the bytes of a whole list; charging each delta at least
 * this much spaces them so that, spread over the events between them, they
 * add about this much per event whatever the list's length (a list of 50
 * items gets one every few events, one of 500 every few dozen), until the
 * list is so big that CHAIN_LENGTH_MAX spaces them instead.
 */
export const DELTA_WEIGHT_MIN = 400;

/**
 * The chain place of the next row, given the previous row's (null: the
 * task's first event), the delta's and the whole list's size in bytes.
 * A delta continues the chain while the chain stays shorter than
 * CHAIN_LENGTH_MAX and its weight within the size of the whole list: once
 * the deltas since the checkpoint weigh more than a checkpoint would, the
 * row is one. The writer's insert (task-store.ts) asks the same in SQL,
 * with `priorBytesMax` from chainLimits.
 */
export function continueChain(previous: ChainPlace | null, deltaBytes: number, listBytes: number): ChainPlace {
  const { weight, priorBytesMax } = chainLimits(deltaBytes, listBytes);
  if (previous === null || previous.length >= CHAIN_LENGTH_MAX || previous.bytes > priorBytesMax) return { length: 0, bytes: 0 };
  return { length: previous.length + 1, bytes: previous.bytes + weight };
}

/** What a delta weighs, and the heaviest chain before it that it may still continue. */
export function chainLimits(deltaBytes: number, listBytes: number): { weight: number; priorBytesMax: number } {
  const weight = Math.max(deltaBytes, DELTA_WEIGHT_MIN);
  return { weight, priorBytesMax: listBytes - weight };
}
