import { describe, expect, it } from 'vitest';
import { refusal } from '../../test/fixtures/refusal.js';
import { diffSnapshots, type Snapshot } from './list-diff.js';
import type { ItemState } from './states.js';
import { orderWithRemoved, planWholeList } from './whole-list.js';

function item(id: string, text = `Item ${id}`, state: ItemState = 'PENDING'): Snapshot {
  return { id, text, state };
}

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

  it('refuses two entries that read the same once NFKC-folded, and stores each text as sent', () => {
    const error = refusal(() => planWholeList([], [{ content: 'Ship', status: 'PENDING' }, { content: 'Ｓｈｉｐ', status: 'PENDING' }]));
    expect(error.code).toBe('DUPLICATE_TEXT');
    expect(planWholeList([], [{ content: 'Ｓｈｉｐ', status: 'PENDING' }]).next[0]!.text).toBe('Ｓｈｉｐ');
  });

  it('holds notes to every text\'s character rules, trimmed', () => {
    expect(refusal(() => planWholeList([], [{ content: 'Ship', status: 'DONE', note: 'ok\u0000' }])).message).toContain('the note of step 1 contains a NUL');
    expect(planWholeList([], [{ content: 'Ship', status: 'DONE', note: ' checked ' }]).next[0]!.note).toBe('checked');
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
