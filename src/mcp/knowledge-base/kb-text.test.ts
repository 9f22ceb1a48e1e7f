import { describe, expect, it } from 'vitest';
import { dependsOnText, kbState, parseDependsOn, parseKbState, targetsOf } from './kb-text.js';
import type { ItemEntity } from '../../db/entities/index.js';

describe('knowledge-base arguments', () => {
  it('reads depends_on as none or ids with optional reasons, commas inside a reason kept', () => {
    expect(parseDependsOn('none')).toEqual([]);
    expect(parseDependsOn(' 12 (the event-id handler, first), 13 ')).toEqual([
      { item: '12', reason: 'the event-id handler, first' }, { item: '13', reason: null },
    ]);
    expect(() => parseDependsOn('i3')).toThrow(/depends_on must be "none"/);
  });

  it('names states todo, doing, done, dropped and refuses others with the four', () => {
    expect(parseKbState('doing')).toBe('IN_PROGRESS');
    expect(kbState('PENDING')).toBe('todo');
    expect(() => parseKbState('finished')).toThrow('Use todo, doing, done or dropped.');
  });

  it('reads a dependency back as the item now reads, with its reason', () => {
    const items = [{ id: 5, text: 'Key charge.succeeded by event id', deleted: false }, { id: 6, text: 'Old', deleted: true }] as ItemEntity[];
    expect(dependsOnText([{ item: '5', reason: 'the event-id handler' }, { item: '6', reason: null }], targetsOf(items))).toBe(
      '[#1 Key charge.succeeded by event id] (the event-id handler)\n[deleted item: Old]',
    );
  });
});
