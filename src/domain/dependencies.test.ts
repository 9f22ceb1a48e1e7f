import { describe, expect, it } from 'vitest';
import { cycleRefused, findCycle } from './dependencies.js';

describe('findCycle', () => {
  it('finds none in a chain or a diamond', () => {
    expect(findCycle([{ item: '1', dependsOn: '2' }, { item: '2', dependsOn: '3' }])).toBeNull();
    expect(findCycle([
      { item: '1', dependsOn: '2' }, { item: '1', dependsOn: '3' }, { item: '2', dependsOn: '4' }, { item: '3', dependsOn: '4' },
    ])).toBeNull();
  });

  it('names the cycle with its first item repeated at the end', () => {
    expect(findCycle([{ item: '3', dependsOn: '5' }, { item: '5', dependsOn: '3' }])).toEqual(['3', '5', '3']);
    expect(findCycle([{ item: '9', dependsOn: '1' }, { item: '1', dependsOn: '2' }, { item: '2', dependsOn: '3' }, { item: '3', dependsOn: '1' }]))
      .toEqual(['1', '2', '3', '1']);
  });

  it('words the refusal with ids and labels', () => {
    const error = cycleRefused(['3', '5', '3'], (id) => `label ${id}`);
    expect(error.code).toBe('BAD_USER_INPUT');
    expect(error.message).toContain('item 3 "label 3" waits for 5 "label 5" waits for 3 "label 3"');
  });
});
