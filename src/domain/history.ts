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
