/**
 * What a refusal asks the caller to send instead, when that names an
 * operation or argument: a closed set, so each surface says it in its own
 * words (GraphQL's here; the knowledge-base tools' in src/mcp/knowledge-base/kb-refusals.ts)
 * and the type checker keeps every surface's table whole. The rest of a
 * refusal (what was wrong) is the same on every surface.
 */
const REMEDIES = ['BRIEF_THE_DETAIL', 'COMMENT_TEXT', 'LINK_BY_ID', 'ADD_THE_WORK_AGAIN', 'WAIT_FOR_A_LIVE_ITEM', 'FILL_THE_BRIEF', 'LEAVE_CLAIMED_WORK', 'CLAIM_IT_AGAIN'] as const;

export type Remedy = (typeof REMEDIES)[number];

/** The remedies in GraphQL's words: the end of the message a catalogued refusal carries (refusals.ts). */
export const GRAPHQL_REMEDIES: Record<Remedy, string> = {
  BRIEF_THE_DETAIL: 'Keep it a short label, verb first, and put the detail in a brief on the item (addTaskNote with items and brief).',
  COMMENT_TEXT: 'send some text (with updateItem, or leave comment out).',
  LINK_BY_ID: 'Link notes or tasks by the ids createNote or createTask returned.',
  ADD_THE_WORK_AGAIN: 'Add a new item with addItems if the work is back.',
  WAIT_FOR_A_LIVE_ITEM: 'Name a live item, or add the work again with addItems.',
  FILL_THE_BRIEF: 'Fill them in (dependsOn may be an empty list, extraInfo may be left out).',
  LEAVE_CLAIMED_WORK: 'Take other work (claimNext), or wait for that claim to end; to change it anyway, send updateItem again with force: true and the reason in comment (the override is recorded).',
  CLAIM_IT_AGAIN: 'Read the item to see what was done; if work is left, claim it again (claimItem) before changing it, or send updateItem with force: true and the reason in comment.',
};
