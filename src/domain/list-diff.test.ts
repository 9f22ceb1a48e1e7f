import { describe, expect, it } from 'vitest';
import { diffSnapshots, type Snapshot } from './list-diff.js';
import type { ItemState } from './states.js';

function item(id: string, text = `Item ${id}`, state: ItemState = 'PENDING'): Snapshot {
  return { id, text, state };
}

function list(...ids: string[]): Snapshot[] {
  return ids.map((id) => item(id));
}

/** The MOVED changes, as "id:from->to". */
function moves(before: Snapshot[], after: Snapshot[]): string[] {
  return diffSnapshots(before, after)
    .filter((change) => change.kind === 'MOVED')
    .map((change) => `${change.itemId}:${change.from}->${change.to}`);
}


describe('diffSnapshots', () => {
  it('reports nothing for identical lists', () => {
    expect(diffSnapshots(list('1', '2', '3'), list('1', '2', '3'))).toEqual([]);
    expect(diffSnapshots([], [])).toEqual([]);
  });

  it('reports every item of a first list as ADDED with its state', () => {
    expect(diffSnapshots([], [item('1', 'Plan', 'IN_PROGRESS'), item('2', 'Ship')])).toEqual([
      { itemId: '1', kind: 'ADDED', text: 'Plan', from: null, to: 'IN_PROGRESS' },
      { itemId: '2', kind: 'ADDED', text: 'Ship', from: null, to: 'PENDING' },
    ]);
  });

  it('reports REMOVED with the old text and state', () => {
    expect(diffSnapshots([item('1', 'Plan', 'DONE'), item('2')], [item('2')])).toEqual([
      { itemId: '1', kind: 'REMOVED', text: 'Plan', from: 'DONE', to: null },
    ]);
  });

  it('reports a STATE change with from and to states', () => {
    expect(diffSnapshots([item('1', 'Plan')], [item('1', 'Plan', 'DONE')])).toEqual([
      { itemId: '1', kind: 'STATE', text: 'Plan', from: 'PENDING', to: 'DONE' },
    ]);
  });

  it('reports a rename with from and to texts, keeping the id', () => {
    expect(diffSnapshots([item('1', 'Old name')], [item('1', 'New name')])).toEqual([
      { itemId: '1', kind: 'RENAMED', text: 'New name', from: 'Old name', to: 'New name' },
    ]);
  });

  it('reports several changes of one item, with the text after the change', () => {
    expect(diffSnapshots([item('1', 'Old', 'PENDING')], [item('1', 'New', 'BLOCKED')])).toEqual([
      { itemId: '1', kind: 'RENAMED', text: 'New', from: 'Old', to: 'New' },
      { itemId: '1', kind: 'STATE', text: 'New', from: 'PENDING', to: 'BLOCKED' },
    ]);
  });

  it('does not treat a new id with an old text as the same item', () => {
    const changes = diffSnapshots([item('1', 'Same')], [item('2', 'Same')]);
    expect(changes.map((c) => `${c.kind} ${c.itemId}`)).toEqual(['ADDED 2', 'REMOVED 1']);
  });

  it('orders changes as the after list, then removals in before order', () => {
    const before = [item('1'), item('2'), item('3', 'Three'), item('4')];
    const after = [item('5'), item('2', 'Two!'), item('4', 'Item 4', 'DONE')];
    expect(diffSnapshots(before, after).map((c) => `${c.kind} ${c.itemId}`)).toEqual([
      'ADDED 5',
      'RENAMED 2',
      'STATE 4',
      'REMOVED 1',
      'REMOVED 3',
    ]);
  });

  it('does not report items merely shifted by an insertion', () => {
    expect(moves(list('1', '2', '3'), list('9', '1', '2', '3'))).toEqual([]);
    expect(moves(list('1', '2', '3'), list('1', '9', '2', '3'))).toEqual([]);
  });

  it('does not report items merely shifted by a removal', () => {
    expect(moves(list('1', '2', '3', '4'), list('2', '3', '4'))).toEqual([]);
    expect(moves(list('1', '2', '3', '4'), list('1', '3', '4'))).toEqual([]);
  });

  it('reports only the item moved to the front, with 1-based positions', () => {
    expect(moves(list('1', '2', '3', '4'), list('4', '1', '2', '3'))).toEqual(['4:4->1']);
  });

  it('reports only the item moved to the end', () => {
    expect(moves(list('1', '2', '3', '4'), list('2', '3', '4', '1'))).toEqual(['1:1->4']);
  });

  it('reports one item of a swapped pair', () => {
    expect(moves(list('1', '2'), list('2', '1'))).toEqual(['2:2->1']);
  });

  it('reports the fewest moves for a reversal', () => {
    expect(moves(list('1', '2', '3', '4'), list('4', '3', '2', '1'))).toHaveLength(3);
  });

  it('reports the minimal set when several items move among many', () => {
    const before = list('a', 'b', 'c', 'd', 'e', 'f', 'g');
    const after = list('a', 'f', 'b', 'c', 'g', 'd', 'e');
    expect(moves(before, after)).toEqual(['f:6->2', 'g:7->5']);
  });

  it('uses positions in each full list when items are added and removed too', () => {
    const before = list('x', '1', '2', '3');
    const after = list('3', '1', 'new', '2');
    expect(moves(before, after)).toEqual(['3:4->1']);
  });

  it('combines a move with a state change on the same item', () => {
    const before = [item('1'), item('2')];
    const after = [item('2', 'Item 2', 'IN_PROGRESS'), item('1')];
    expect(diffSnapshots(before, after)).toEqual([
      { itemId: '2', kind: 'STATE', text: 'Item 2', from: 'PENDING', to: 'IN_PROGRESS' },
      { itemId: '2', kind: 'MOVED', text: 'Item 2', from: '2', to: '1' },
    ]);
  });

  it('reports everything removed when the list is cleared', () => {
    expect(diffSnapshots(list('1', '2'), []).map((c) => `${c.kind} ${c.itemId}`)).toEqual(['REMOVED 1', 'REMOVED 2']);
  });
});
