import { describe, expect, it } from 'vitest';
import { steeringLines, type SteeringChange } from './steering.js';

const step = (n: number, text: string, state = 'PENDING', note: string | null = null) => ({ id: String(100 + n), text, state, deleted: false, note });

describe('steeringLines', () => {
  it('names who changed what, a step by its number and a reason in brackets', () => {
    const changes: SteeringChange[] = [
      { action: 'ITEM_STATE', madeBy: null, item: step(3, 'Migrate the ledger', 'DROPPED', 'out of scope'), step: 3, taskTitle: null },
      { action: 'ITEM_RENAMED', madeBy: 'abc', item: step(1, 'Read the code'), step: 1, taskTitle: null },
      { action: 'CLAIM_RELEASED', madeBy: null, item: step(9, 'Key the handler'), step: null, taskTitle: 'Billing' },
    ];
    expect(steeringLines(changes)).toEqual([
      'Since your last call: a person dropped step 3 "Migrate the ledger" (out of scope).',
      'Since your last call: session abc changed the text of step 1 "Read the code".',
      'Since your last call: a person released your claim on item 109 "Key the handler".',
    ]);
  });

  it('says nothing of bookkeeping, says a repeated change once, and counts what is past five lines', () => {
    const quiet: SteeringChange[] = [
      { action: 'TURN_STARTED', madeBy: null, item: null, step: null, taskTitle: null },
      { action: 'CLAIM_RENEWED', madeBy: null, item: step(1, 'A'), step: null, taskTitle: 'T' },
    ];
    expect(steeringLines(quiet)).toEqual([]);
    const moved = { action: 'ITEM_MOVED', madeBy: null, item: step(1, 'A'), step: 1, taskTitle: null } as const;
    expect(steeringLines([moved, moved])).toHaveLength(1);
    const many: SteeringChange[] = Array.from({ length: 8 }, (_, i) => ({ action: 'ITEMS_ADDED', madeBy: null, item: step(i + 1, `Step ${i + 1}`), step: i + 1, taskTitle: null }));
    const lines = steeringLines(many);
    expect(lines).toHaveLength(5);
    expect(lines[4]).toBe('Since your last call: and 4 more changes by others; read your plan or items again.');
  });
});
