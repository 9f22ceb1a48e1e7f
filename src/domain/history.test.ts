import { describe, expect, it } from 'vitest';
import { CHANGE_ACTIONS, HISTORY_ACTIONS, changesTheList } from './history.js';

describe('history actions', () => {
  it('count as a change of the list only for steps: not comments, notes, links, claims or task edits', () => {
    expect(HISTORY_ACTIONS.filter((action) => !changesTheList(action))).toEqual([
      'TASK_EDITED', 'ITEM_LINKED', 'ITEM_WAITS', 'COMMENT_ADDED', 'NOTE_ADDED', 'NOTE_EDITED', 'NOTE_DELETED', 'ITEM_CLAIMED', 'CLAIM_RELEASED', 'CLAIM_OVERRIDDEN',
    ]);
  });

  it('are all change-event actions too, each listed once', () => {
    expect(HISTORY_ACTIONS.every((action) => (CHANGE_ACTIONS as readonly string[]).includes(action))).toBe(true);
    expect(new Set(CHANGE_ACTIONS).size).toBe(CHANGE_ACTIONS.length);
  });
});
