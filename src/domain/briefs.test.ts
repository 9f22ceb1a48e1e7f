import { describe, expect, it } from 'vitest';
import { cleanBrief, taskNoteShape, type BriefIn } from './briefs.js';
import { refusal } from '../../test/fixtures/refusal.js';

const full: BriefIn = {
  goal: ' Replays are idempotent. ', context: 'The queue lives in the worker.', steps: 'Persist each event id first.',
  pitfalls: 'A restart mid-replay must not double-book.', doneWhen: 'The restart test passes.', dependsOn: [],
};
const ids = new Set(['10', '11', '12']);

describe('cleanBrief', () => {
  it('trims every field and keeps dependsOn with reasons', () => {
    const brief = cleanBrief({ ...full, dependsOn: [{ item: ' 10 ', reason: ' the event-id handler ' }, { item: '11' }] }, ids);
    expect(brief.goal).toBe('Replays are idempotent.');
    expect(brief.dependsOn).toEqual([{ item: '10', reason: 'the event-id handler' }, { item: '11', reason: null }]);
    expect(brief.extraInfo).toBeNull();
  });

  it('names every blank required field', () => {
    const error = refusal(() => cleanBrief({ ...full, context: '  ', pitfalls: '' }, ids));
    expect(error.code).toBe('BRIEF_INCOMPLETE');
    expect(error.message).toContain('context, pitfalls are empty');
  });

  it('refuses dependencies outside the task, repeated ones, and bare references', () => {
    expect(refusal(() => cleanBrief({ ...full, dependsOn: [{ item: '99' }] }, ids)).code).toBe('UNKNOWN_REFERENCE');
    expect(refusal(() => cleanBrief({ ...full, dependsOn: [{ item: '10' }, { item: '10' }] }, ids)).code).toBe('BAD_USER_INPUT');
    expect(refusal(() => cleanBrief({ ...full, steps: 'finish i3 first' }, ids)).code).toBe('BARE_ITEM_REFERENCE');
    expect(refusal(() => cleanBrief({ ...full, steps: 'after [[#12]] and [[#13]]' }, ids)).code).toBe('UNKNOWN_REFERENCE');
  });
});

describe('cleanBrief dependencies', () => {
  it('refuses an item waiting for itself', () => {
    expect(refusal(() => cleanBrief({ ...full, dependsOn: [{ item: '10' }] }, ids, { briefed: new Set(['10']) })).code).toBe('BAD_USER_INPUT');
  });

  it('refuses a new wait on a deleted item, but keeps one the brief already had', () => {
    const deleted = new Set(['11']);
    expect(refusal(() => cleanBrief({ ...full, dependsOn: [{ item: '11' }] }, ids, { deleted })).code).toBe('DELETED_ITEM');
    expect(cleanBrief({ ...full, dependsOn: [{ item: '11' }] }, ids, { deleted, kept: new Set(['11']) }).dependsOn).toEqual([{ item: '11', reason: null }]);
  });
});

describe('taskNoteShape', () => {
  it('tells briefs from whole-task notes', () => {
    expect(taskNoteShape({ items: ['1'], brief: full })).toBe('BRIEF');
    expect(taskNoteShape({ body: 'Never call the provider twice.' })).toBe('WHOLE_TASK');
  });

  it('refuses both, neither, a brief without items and items without a brief', () => {
    expect(refusal(() => taskNoteShape({ items: ['1'], brief: full, body: 'x' })).code).toBe('BRIEF_INCOMPLETE');
    expect(refusal(() => taskNoteShape({})).code).toBe('BRIEF_INCOMPLETE');
    expect(refusal(() => taskNoteShape({ brief: full })).code).toBe('BRIEF_INCOMPLETE');
    expect(refusal(() => taskNoteShape({ items: ['1'] })).code).toBe('BRIEF_INCOMPLETE');
  });
});
