import { describe, expect, it } from 'vitest';
import { inferOp } from './step-ops/step-ops.parts.js';
import { parseToolSets } from './tool-sets.js';

describe('parseToolSets', () => {
  it('defaults to whole-list and knowledge-base, and gives each plan set its preset', () => {
    expect(parseToolSets(undefined)).toEqual({ sets: ['whole-list', 'knowledge-base'], preset: 'WHOLE_LIST' });
    expect(parseToolSets(' step-ops , knowledge-base ')).toEqual({ sets: ['step-ops', 'knowledge-base'], preset: 'STEP_OPS' });
    expect(parseToolSets('plan-and-finish').preset).toBe('PLAN_AND_FINISH');
    expect(parseToolSets('knowledge-base')).toEqual({ sets: ['knowledge-base'], preset: null });
  });

  it('refuses two plan sets and unknown names', () => {
    expect(() => parseToolSets('whole-list,step-ops')).toThrow('at most one plan set');
    expect(() => parseToolSets('todo')).toThrow('unknown tool set "todo"');
  });
});

describe('inferOp', () => {
  it('reads index with status as an update, tasks alone as a set, nothing as a view; never infers add', () => {
    expect(inferOp({ index: 1, status: 'done' })).toBe('update');
    expect(inferOp({ tasks: ['a'] })).toBe('set');
    expect(inferOp({})).toBe('view');
    expect(inferOp({ op: 'add', tasks: ['a'] })).toBe('add');
    expect(() => inferOp({ index: 1 })).toThrow('cannot tell which op');
    expect(() => inferOp({ op: 'append' })).toThrow('Valid ops: set, add, update, view, clear.');
  });
});
