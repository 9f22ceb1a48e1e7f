import { describe, expect, it } from 'vitest';
import { openTasksText, renderChecklist, summaryLine, taskIds, type ChecklistItem } from './plan-render.js';

function item(id: number, text: string, state: ChecklistItem['state'] = 'PENDING', extra: Partial<ChecklistItem> = {}): ChecklistItem {
  return { id, text, state, note: null, added: false, deleted: false, ...extra };
}

describe('the plan-and-finish checklist', () => {
  it('renders glyph, id, text, note and (added mid-session), ids staying put when a task is inserted', () => {
    const list = [
      item(40, 'Read the code', 'DONE', { note: 'read src/parser.ts' }),
      item(45, 'Add a regression test', 'IN_PROGRESS', { added: true }),
      item(41, 'Fix the bug', 'BLOCKED', { note: 'waiting on the\nvendor' }),
      item(42, 'Run the tests', 'DROPPED', { note: 'no CI here' }),
      item(43, 'Write it up'),
    ];
    expect(renderChecklist(list)).toBe(
      '[x] 1. Read the code - read src/parser.ts\n[~] 5. Add a regression test (added mid-session)\n[!] 2. Fix the bug - waiting on the vendor\n' +
        '[-] 3. Run the tests - no CI here\n[ ] 4. Write it up',
    );
  });

  it('never reuses the id of a deleted task', () => {
    const ids = taskIds([item(7, 'a', 'PENDING', { deleted: true }), item(8, 'b'), item(9, 'c')]);
    expect([...ids.values()]).toEqual([1, 2, 3]);
    expect(renderChecklist([item(7, 'a', 'PENDING', { deleted: true }), item(8, 'b')])).toBe('[ ] 2. b');
  });

  it('sums up in the order done, blocked, dropped, in progress, pending, leaving zero counts out', () => {
    const list = [item(1, 'a', 'DONE'), item(2, 'b', 'DONE'), item(3, 'c', 'DROPPED'), item(4, 'd', 'BLOCKED')];
    expect(summaryLine(list)).toBe('4 tasks: 2 done, 1 blocked, 1 dropped.');
  });

  it('counts and lists the open tasks for finish, and is null when none is open', () => {
    const text = openTasksText([item(1, 'a', 'DONE'), item(2, 'b', 'IN_PROGRESS'), item(3, 'c')]);
    expect(text).toContain('2 of 3 tasks are still open:\n  2. b (in_progress)\n  3. c (pending)\n');
    expect(text).toContain('blocked or dropped with the reason');
    expect(openTasksText([item(1, 'a', 'DONE'), item(2, 'b', 'DROPPED', { note: 'n/a' })])).toBeNull();
  });
});
