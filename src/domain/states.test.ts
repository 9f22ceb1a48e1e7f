import { describe, expect, it } from 'vitest';
import { SETTLED_ITEM_STATES, deriveTaskState, isActive, taskStatus, type ItemState } from './states.js';

const live = (...states: ItemState[]) => states.map((state) => ({ state, deleted: false }));

describe('deriveTaskState', () => {
  it('is OPEN with no live item, or while any live item is active or stuck', () => {
    expect(deriveTaskState([])).toBe('OPEN');
    expect(deriveTaskState([{ state: 'DONE', deleted: true }])).toBe('OPEN');
    for (const open of ['PENDING', 'IN_PROGRESS', 'BLOCKED', 'FAILED'] as const) {
      expect(deriveTaskState(live('DONE', 'DROPPED', open)), open).toBe('OPEN');
    }
  });

  it('is COMPLETED when every live item is DONE or DROPPED and one is DONE; CANCELLED when all are DROPPED', () => {
    expect(deriveTaskState(live('DONE', 'DROPPED'))).toBe('COMPLETED');
    expect(deriveTaskState(live('DROPPED', 'DROPPED'))).toBe('CANCELLED');
    expect(deriveTaskState([...live('DROPPED'), { state: 'BLOCKED', deleted: true }])).toBe('CANCELLED');
  });

  it('archives exactly the closed states', () => {
    expect(taskStatus('OPEN')).toBe('ACTIVE');
    expect(taskStatus('COMPLETED')).toBe('ARCHIVED');
    expect(taskStatus('CANCELLED')).toBe('ARCHIVED');
  });
});

describe('settled, stuck and active states', () => {
  it('splits the six states three ways', () => {
    const all: ItemState[] = ['PENDING', 'IN_PROGRESS', 'DONE', 'DROPPED', 'BLOCKED', 'FAILED'];
    expect(all.filter((state) => SETTLED_ITEM_STATES.includes(state))).toEqual(['DONE', 'DROPPED']);
    expect(all.filter(isActive)).toEqual(['PENDING', 'IN_PROGRESS']);
  });
});
