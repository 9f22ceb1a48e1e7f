/** Item states as people read them, said once for every view. */
export const STATES = ['PENDING', 'IN_PROGRESS', 'DONE', 'DROPPED', 'BLOCKED', 'FAILED'] as const;
export const STATE_LABEL: Record<string, string> = { PENDING: 'To do', IN_PROGRESS: 'Doing', DONE: 'Done', DROPPED: 'Dropped', BLOCKED: 'Blocked', FAILED: 'Failed' };

/** BLOCKED and FAILED: not finished, and nobody can go on without help (they keep a task open). */
export function isStuck(state: string): boolean {
  return state === 'BLOCKED' || state === 'FAILED';
}

/** How many live items of a task are stuck, from its progress counts. */
export function stuckCount(progress: { blocked?: number; failed?: number } | null | undefined): number {
  return (progress?.blocked ?? 0) + (progress?.failed ?? 0);
}

/** What the note a plan rule asks for is called, in the rule's words: a validation for DONE and FAILED, a reason for BLOCKED and DROPPED. */
export function noteKind(state: string): 'validation' | 'reason' {
  return state === 'DONE' || state === 'FAILED' ? 'validation' : 'reason';
}
