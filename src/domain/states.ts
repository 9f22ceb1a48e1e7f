/**
 * Item states and what they make of a task. A task's state and archive
 * status are derived here from its live items, by one rule (taskStateOf over
 * the counts of its live items by state); the task row keeps those counts and
 * the state they give (taskState, for lists to filter and index on), written
 * in the same transaction as every item change (tests check them against a recount).
 */
export const ITEM_STATES = ['PENDING', 'IN_PROGRESS', 'DONE', 'DROPPED', 'BLOCKED', 'FAILED'] as const;
export type ItemState = (typeof ITEM_STATES)[number];

export type TaskState = 'OPEN' | 'COMPLETED' | 'CANCELLED';
export type MemoryStatus = 'ACTIVE' | 'ARCHIVED';

/** Finished with: the work was done, or it was given up on purpose. BLOCKED and FAILED are stuck, not settled: they keep a task open. */
export const SETTLED_ITEM_STATES: readonly ItemState[] = ['DONE', 'DROPPED'];
/** Not finished and not being worked: the work still needs someone (errors.md "stuck"). */
export const STUCK_ITEM_STATES: readonly ItemState[] = ['BLOCKED', 'FAILED'];
/** Still to do or being done: what a plan cannot be finished with. */
const ACTIVE_ITEM_STATES: readonly ItemState[] = ['PENDING', 'IN_PROGRESS'];

/**
 * PENDING or IN_PROGRESS. A session's plan is finished once no step is active:
 * a step may end BLOCKED, DROPPED or FAILED with its reason.
 */
export function isActive(state: ItemState): boolean {
  return ACTIVE_ITEM_STATES.includes(state);
}

/** The minimum an item needs for the task state: its state and whether it is deleted. */
export interface ItemStateView {
  state: ItemState;
  deleted: boolean;
}

/** A task's state from its items: the rule is taskStateOf, over their counts. */
export function deriveTaskState(items: readonly ItemStateView[]): TaskState {
  return taskStateOf(progressOf(items));
}

/**
 * The one rule for a task's state, from its counts of live items by state
 * (which the task row keeps, so lists read it without the items): OPEN while
 * any live item is PENDING, IN_PROGRESS, BLOCKED or FAILED, or there is no
 * live item; COMPLETED once every live item is DONE or DROPPED and one or
 * more is DONE; CANCELLED once every live item is DROPPED.
 */
export function taskStateOf(counts: ProgressCounts): TaskState {
  if (counts.total === 0 || counts.pending + counts.inProgress + counts.blocked + counts.failed > 0) return 'OPEN';
  return counts.done > 0 ? 'COMPLETED' : 'CANCELLED';
}

/** A closed task is archived like any other memory; reopening it makes it active. */
export function taskStatus(state: TaskState): MemoryStatus {
  return state === 'OPEN' ? 'ACTIVE' : 'ARCHIVED';
}

export interface ProgressCounts {
  done: number;
  total: number;
  pending: number;
  inProgress: number;
  dropped: number;
  blocked: number;
  failed: number;
}

/** Counts of live items by state. */
export function progressOf(items: readonly ItemStateView[]): ProgressCounts {
  const counts: ProgressCounts = { done: 0, total: 0, pending: 0, inProgress: 0, dropped: 0, blocked: 0, failed: 0 };
  for (const item of items) {
    if (item.deleted) continue;
    counts.total += 1;
    switch (item.state) {
      case 'DONE': counts.done += 1; break;
      case 'PENDING': counts.pending += 1; break;
      case 'IN_PROGRESS': counts.inProgress += 1; break;
      case 'DROPPED': counts.dropped += 1; break;
      case 'BLOCKED': counts.blocked += 1; break;
      case 'FAILED': counts.failed += 1; break;
    }
  }
  return counts;
}
