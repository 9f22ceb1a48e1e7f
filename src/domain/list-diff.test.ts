import { describe, expect, it } from 'vitest';
import { refusal } from '../../test/fixtures/refusal.js';
import { diffSnapshots, orderWithRemoved, planWholeList, type Snapshot } from './list-diff.js';
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

describe('planWholeList', () => {
  const existing = [item('10', 'Read the code', 'DONE'), item('11', 'Write tests', 'IN_PROGRESS'), item('12', 'Ship')];

  it('keeps the id of an entry whose trimmed text matches a live item, taking the state sent', () => {
    const { next, removedIds } = planWholeList(existing, [
      { content: '  Read the code ', status: 'DONE' },
      { content: 'Write tests', status: 'DONE' },
      { content: 'Ship', status: 'IN_PROGRESS' },
    ]);
    expect(next).toEqual([
      { id: '10', text: 'Read the code', state: 'DONE' },
      { id: '11', text: 'Write tests', state: 'DONE' },
      { id: '12', text: 'Ship', state: 'IN_PROGRESS' },
    ]);
    expect(removedIds).toEqual([]);
  });

  it('makes new text a new item and removes items left out, in existing order', () => {
    const { next, removedIds } = planWholeList(existing, [
      { content: 'Ship', status: 'PENDING' },
      { content: 'Write more tests', status: 'PENDING' },
    ]);
    expect(next).toEqual([
      { id: '12', text: 'Ship', state: 'PENDING' },
      { id: null, text: 'Write more tests', state: 'PENDING' },
    ]);
    expect(removedIds).toEqual(['10', '11']);
  });

  it('matches text exactly, so a change of case is a new item', () => {
    const { next, removedIds } = planWholeList(existing, [{ content: 'ship', status: 'PENDING' }]);
    expect(next[0]!.id).toBeNull();
    expect(removedIds).toEqual(['10', '11', '12']);
  });

  it('matches unicode text after trimming, and only the same characters', () => {
    const live = [item('1', 'Prüfen 検証 🚀')];
    // 检 (simplified) is a different character from 検, so that entry is new.
    const { next } = planWholeList(live, [
      { content: 'Prüfen 检证 🚀', status: 'PENDING' },
      { content: '\u00a0Prüfen 検証 🚀 ', status: 'DONE' },
    ]);
    expect(next.map((t) => t.id)).toEqual([null, '1']);
  });

  it('records an empty list as removing everything', () => {
    expect(planWholeList(existing, [])).toEqual({ next: [], removedIds: ['10', '11', '12'] });
  });

  it('starts a first list with only new items', () => {
    expect(planWholeList([], [{ content: 'A', status: 'PENDING' }])).toEqual({
      next: [{ id: null, text: 'A', state: 'PENDING' }],
      removedIds: [],
    });
  });

  it('does not match one live item twice should two share a text', () => {
    const twins = [item('1', 'Same'), item('2', 'Same')];
    expect(planWholeList(twins, [{ content: 'Same', status: 'DONE' }])).toEqual({
      next: [{ id: '1', text: 'Same', state: 'DONE' }],
      removedIds: ['2'],
    });
  });

  it('refuses an empty entry with the to-do tool message', () => {
    const error = refusal(() => planWholeList(existing, [{ content: 'A', status: 'PENDING' }, { content: ' \t\n', status: 'PENDING' }]));
    expect(error.code).toBe('EMPTY_TEXT');
    expect(error.message).toBe('invalid todo: `content` must be a non-empty string');
  });

  it('refuses the same text twice after trimming, quoting the trimmed content', () => {
    const error = refusal(() =>
      planWholeList(existing, [
        { content: 'Deploy', status: 'PENDING' },
        { content: '  Deploy  ', status: 'DONE' },
      ]),
    );
    expect(error.code).toBe('DUPLICATE_TEXT');
    expect(error.message).toBe('invalid todos: duplicate content "Deploy"');
  });

  it('reports the first problem in list order', () => {
    const error = refusal(() =>
      planWholeList(existing, [
        { content: 'A', status: 'PENDING' },
        { content: 'A', status: 'PENDING' },
        { content: '', status: 'PENDING' },
      ]),
    );
    expect(error.code).toBe('DUPLICATE_TEXT');
  });

  it('feeds diffSnapshots so a kept text keeps its history', () => {
    const { next } = planWholeList(existing, [
      { content: 'Ship', status: 'PENDING' },
      { content: 'Read the code', status: 'DONE' },
    ]);
    const after = next.map((todo, i) => ({ id: todo.id ?? `new${i}`, text: todo.text, state: todo.state }));
    expect(diffSnapshots(existing, after).map((c) => `${c.kind} ${c.itemId}`)).toEqual(['MOVED 12', 'REMOVED 11']);
  });
});

describe('orderWithRemoved', () => {
  it('is the live order when nothing was removed', () => {
    expect(orderWithRemoved(['1', '2'], ['2', '1', '3'])).toEqual(['2', '1', '3']);
  });

  it('keeps a removed item right after the nearest earlier item still live', () => {
    expect(orderWithRemoved(['1', '2', '3', '4'], ['1', '4', '5'])).toEqual(['1', '2', '3', '4', '5']);
    expect(orderWithRemoved(['1', '2', '3'], ['3', '1'])).toEqual(['3', '1', '2']);
  });

  it('puts removed items first when nothing live stood before them', () => {
    expect(orderWithRemoved(['1', '2', '3'], ['3', '9'])).toEqual(['1', '2', '3', '9']);
  });

  it('keeps every removed item when the new list is empty', () => {
    expect(orderWithRemoved(['1', '2'], [])).toEqual(['1', '2']);
  });
});
