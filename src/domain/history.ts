import { DomainError } from './errors.js';

/**
 * The closed vocabularies of what gets recorded: history actions (one per
 * task event, the "Update to-do list" rows of a plan) and change-event
 * actions (what the change bus tells listeners). Rules over them are
 * allowlists, so a new action has to be placed on purpose.
 */

/** What a task event (a history row) records. */
export const HISTORY_ACTIONS = [
  'TASK_CREATED', 'TASK_EDITED',
  'ITEM_STATE', 'ITEMS_ADDED', 'ITEM_RENAMED', 'ITEM_DELETED', 'ITEM_MOVED', 'ITEM_LINKED',
  'ITEM_RESTORED',
  // What an item waits for, set by its own `after` (a brief's waits are its NOTE_ADDED or NOTE_EDITED).
  'ITEM_WAITS',
  'COMMENT_ADDED', 'NOTE_ADDED', 'NOTE_EDITED', 'NOTE_DELETED',
  'PLAN_WRITTEN', 'PLAN_CLEARED',
  'ITEM_CLAIMED', 'CLAIM_RELEASED', 'CLAIM_OVERRIDDEN',
] as const;
export type HistoryAction = (typeof HISTORY_ACTIONS)[number];

/**
 * The actions that change a list's steps (which items, their text, state or
 * order): on a plan, these rewrite it, and the latest of them says whether
 * the plan stands or was cleared. A comment, a note or a link is not one.
 */
export const LIST_ACTIONS: readonly HistoryAction[] = [
  'TASK_CREATED', 'ITEM_STATE', 'ITEMS_ADDED', 'ITEM_RENAMED', 'ITEM_DELETED', 'ITEM_MOVED', 'PLAN_WRITTEN', 'PLAN_CLEARED',
  'ITEM_RESTORED',
];

export function changesTheList(action: HistoryAction): boolean {
  return LIST_ACTIONS.includes(action);
}

/** What a change event says happened: every history action, and the changes that write no history row. */
export const CHANGE_ACTIONS = [
  ...HISTORY_ACTIONS,
  'NOTE_CREATED', 'NOTE_ARCHIVED',
  'SESSION_STARTED', 'SESSION_FINISHED', 'RULES_CHANGED', 'TURN_STARTED', 'REMINDED', 'PLAN_CHANGED',
  'SETTINGS_CHANGED',
  // A renewal only moves the expiry: it is in the change log, not in the task's history (agents renew every few minutes).
  'CLAIM_RENEWED',
  // A session was told of others' changes to its plan or claimed items (its steeringSeenAt moved): no history row.
  'STEERING_SEEN',
  // A lease ran out (told by a server's sweep, services/claims/claim-expiry.ts): the item is ready again. No history row.
  'ITEM_CLAIM_EXPIRED',
] as const;
export type ChangeAction = (typeof CHANGE_ACTIONS)[number];

/** What a change event is about. */
export type ChangeEntity = 'TASK' | 'NOTE' | 'SESSION' | 'SETTINGS';

/** A history filter's actions, checked: each must be a history action (BAD_USER_INPUT naming them otherwise), so the filter is small and says what it means. */
export function historyActionsOf(actions: readonly string[]): HistoryAction[] {
  const unknown = actions.filter((action) => !(HISTORY_ACTIONS as readonly string[]).includes(action));
  if (unknown.length) {
    throw new DomainError('BAD_USER_INPUT', `actions takes history actions only; ${unknown.slice(0, 3).map((a) => JSON.stringify(a.slice(0, 40))).join(', ')} is not one. Send some of: ${HISTORY_ACTIONS.join(', ')}.`);
  }
  return [...new Set(actions)] as HistoryAction[];
}

/**
 * Which logged changes a person reads in the activity stream: what was done
 * to tasks, notes, plans and sessions. Bookkeeping (a claim's renewal, a
 * reminder, a turn, the steering cursor, a plan's change logged twice) is
 * left out. An allowlist over every action, so a new one is placed on purpose.
 */
const IN_ACTIVITY: Record<ChangeAction, boolean> = {
  TASK_CREATED: true, TASK_EDITED: true,
  ITEM_STATE: true, ITEMS_ADDED: true, ITEM_RENAMED: true, ITEM_DELETED: true, ITEM_MOVED: true, ITEM_LINKED: true, ITEM_RESTORED: true, ITEM_WAITS: true,
  COMMENT_ADDED: true, NOTE_ADDED: true, NOTE_EDITED: true, NOTE_DELETED: true,
  PLAN_WRITTEN: true, PLAN_CLEARED: true,
  ITEM_CLAIMED: true, CLAIM_RELEASED: true, CLAIM_OVERRIDDEN: true, ITEM_CLAIM_EXPIRED: true,
  NOTE_CREATED: true, NOTE_ARCHIVED: true,
  SESSION_STARTED: true, SESSION_FINISHED: true, RULES_CHANGED: true,
  TURN_STARTED: false, REMINDED: false, PLAN_CHANGED: false, SETTINGS_CHANGED: true, CLAIM_RENEWED: false, STEERING_SEEN: false,
};

export const ACTIVITY_ACTIONS: readonly ChangeAction[] = CHANGE_ACTIONS.filter((action) => IN_ACTIVITY[action]);
