import { describe, expect, it } from 'vitest';
import { cleanBrief, taskNoteShape, type BriefIn } from './briefs.js';
import { DomainError } from './errors.js';

const full: BriefIn = {
  goal: ' Replays are idempotent. ', context: 'The queue lives in the worker.', steps: 'Persist each event id first.',
  pitfalls: 'A restart mid-replay must not double-book.', doneWhen: 'The restart test passes.', dependsOn: [],
};
const ids = new Set(['10', '11', '12']);

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return error instanceof DomainError ? error.code : 'not a DomainError';
  }
  return undefined;
}

describe('cleanBrief', () => {
  it('trims every field and keeps dependsOn with reasons', () => {
    const brief = cleanBrief({ ...full, dependsOn: [{ item: ' 10 ', reason: ' the event-id handler ' }, { item: '11' }] }, ids);
    expect(brief.goal).toBe('Replays are idempotent.');
    expect(brief.dependsOn).toEqual([{ item: '10', reason: 'the event-id handler' }, { item: '11', reason: null }]);
    expect(brief.extraInfo).toBeNull();
  });

  it('names every blank required field', () => {
    try {
      cleanBrief({ ...full, context: '  ', pitfalls: '' }, ids);
      expect.unreachable();
    } catch (error) {
      expect((error as DomainError).code).toBe('BRIEF_INCOMPLETE');
      expect((error as DomainError).message).toContain('context, pitfalls are empty');
    }
  });

  it('refuses dependencies outside the task, repeated ones, and bare references', () => {
    expect(codeOf(() => cleanBrief({ ...full, dependsOn: [{ item: '99' }] }, ids))).toBe('UNKNOWN_REFERENCE');
    expect(codeOf(() => cleanBrief({ ...full, dependsOn: [{ item: '10' }, { item: '10' }] }, ids))).toBe('BAD_USER_INPUT');
    expect(codeOf(() => cleanBrief({ ...full, steps: 'finish i3 first' }, ids))).toBe('BARE_ITEM_REFERENCE');
    expect(codeOf(() => cleanBrief({ ...full, steps: 'after [[#12]] and [[#13]]' }, ids))).toBe('UNKNOWN_REFERENCE');
  });
});

describe('taskNoteShape', () => {
  it('tells briefs from whole-task notes', () => {
    expect(taskNoteShape({ items: ['1'], brief: full })).toBe('BRIEF');
    expect(taskNoteShape({ body: 'Never call the provider twice.' })).toBe('WHOLE_TASK');
  });

  it('refuses both, neither, a brief without items and items without a brief', () => {
    expect(codeOf(() => taskNoteShape({ items: ['1'], brief: full, body: 'x' }))).toBe('BRIEF_INCOMPLETE');
    expect(codeOf(() => taskNoteShape({}))).toBe('BRIEF_INCOMPLETE');
    expect(codeOf(() => taskNoteShape({ brief: full }))).toBe('BRIEF_INCOMPLETE');
    expect(codeOf(() => taskNoteShape({ items: ['1'] }))).toBe('BRIEF_INCOMPLETE');
  });
});
