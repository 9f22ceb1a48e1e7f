import type { ItemEntity } from '../../db/entities/index.js';
import type { ItemState } from '../../domain/states.js';
import { oneLine } from '../../domain/one-line.js';

/** The five step-ops statuses and the item states they are. */
export const STEP_STATUSES = {
  pending: 'PENDING',
  in_progress: 'IN_PROGRESS',
  done: 'DONE',
  failed: 'FAILED',
  dropped: 'DROPPED',
} as const satisfies Record<string, ItemState>;

/** What view answers before any plan, word for word (agents match on it). */
export const NO_PLAN_TEXT = 'No plan set for this session.';

/** An item state as step-ops names it (BLOCKED, set elsewhere, reads "blocked"). */
export function stepOpsStatus(state: ItemState): string {
  return state.toLowerCase();
}

/** "1 step", "3 steps". */
export function stepsCount(n: number): string {
  return `${n} step${n === 1 ? '' : 's'}`;
}

/**
 * The counts line of every answer that changes the plan, in this tool's
 * statuses: all five, so a failed or dropped step is never out of the sum
 * ("4 steps: 1 pending, 1 in_progress, 1 done, 1 failed, 0 dropped."); a
 * blocked step, set elsewhere, is counted when there is one.
 */
export function stepCounts(steps: readonly { state: ItemState }[]): string {
  const states: ItemState[] = [...Object.values(STEP_STATUSES), ...(steps.some((step) => step.state === 'BLOCKED') ? (['BLOCKED'] as const) : [])];
  const parts = states.map((state) => `${steps.filter((step) => step.state === state).length} ${stepOpsStatus(state)}`);
  return `${stepsCount(steps.length)}: ${parts.join(', ')}.`;
}

/** The plan, one line a step: "2. [done] Run the tests — validation: ran npm test: 38 passed". */
export function renderSteps(steps: readonly Pick<ItemEntity, 'text' | 'state' | 'note' | 'added'>[]): string {
  if (steps.length === 0) return '(the plan has no steps)';
  return steps
    .map((step, index) => {
      const validation = step.note ? ` — validation: ${oneLine(step.note)}` : '';
      return `${index + 1}. [${stepOpsStatus(step.state)}] ${step.text}${validation}${step.added ? ' (added)' : ''}`;
    })
    .join('\n');
}
