import { describe, expect, it } from 'vitest';
import { refusal } from '../../test/fixtures/refusal.js';
import { DEFAULT_PLAN_RULES, type PlanRules, type PlanStep } from './plan-rules.js';
import {
  NO_SESSION_MESSAGE,
  checkAddedSteps,
  checkStepStart,
  noPlan,
  noSession,
  planClearedMessage,
  planSetMessage,
  stepUpdatedMessage,
  stepsAddedMessage,
} from './plan-steps.js';
import type { ItemState } from './states.js';


const rules = (change: Partial<PlanRules> = {}): PlanRules => ({ ...DEFAULT_PLAN_RULES, ...change });

function step(text: string, state: ItemState = 'PENDING'): PlanStep {
  return { text, state, note: null, added: false };
}

describe('noSession', () => {
  it('gives the to-do tool message, the one clients match on', () => {
    const error = noSession();
    expect(error.code).toBe('NO_SESSION');
    expect(error.message).toBe('todo_write requires an owning agent session');
    expect(NO_SESSION_MESSAGE).toBe(error.message);
  });
});

describe('noPlan', () => {
  it('asks for a plan first, naming the operation', () => {
    expect(noPlan('addSteps').code).toBe('NO_PLAN');
    expect(noPlan('updateStep').message).toContain('updateStep needs a plan');
    expect(noPlan('finishSession').message).toContain('before you claim to be finished');
  });
});

describe('checkAddedSteps', () => {
  it('accepts a step that repeats a live one, or one sent twice: a re-run after a fix', () => {
    expect(checkAddedSteps(2, [' Run the tests', 'Run the tests'], 3, rules())).toEqual(['Run the tests', 'Run the tests']);
  });

  it('returns the trimmed texts', () => {
    expect(checkAddedSteps(1, ['  Write the fix ', 'Run the tests'], 2, rules())).toEqual(['Write the fix', 'Run the tests']);
  });

  it('refuses an empty call', () => {
    expect(refusal(() => checkAddedSteps(0, [], 1, rules())).code).toBe('BAD_USER_INPUT');
  });

  it('refuses empty text with the to-do tool message', () => {
    const error = refusal(() => checkAddedSteps(0, ['   '], 1, rules()));
    expect(error.code).toBe('EMPTY_TEXT');
    expect(error.message).toBe('invalid todo: `content` must be a non-empty string');
  });

  it('names an over-long step by the place it would take, with the limit as data', () => {
    const error = refusal(() => checkAddedSteps(2, ['ok', 'x'.repeat(21)], 3, rules({ maxTextLength: 20 })));
    expect(error.code).toBe('TEXT_TOO_LONG');
    expect(error.message).toContain('step 4 is 21 characters');
    expect(error.details).toEqual({ step: 4, count: 21, limit: 20 });
  });

  it('keeps [[#12]] in a step as plain text', () => {
    expect(checkAddedSteps(0, ['Answer [[#12]] on the thread'], 1, rules())).toEqual(['Answer [[#12]] on the thread']);
  });

  it('refuses growing past maxItems but not a plan still under minItems', () => {
    const error = refusal(() => checkAddedSteps(2, ['c', 'd'], 3, rules({ maxItems: 3 })));
    expect(error.code).toBe('PLAN_SIZE');
    expect(error.message).toContain('the plan would have 4 steps');
    expect(error.details).toEqual({ count: 4, limit: 3, current: 2 });
    expect(checkAddedSteps(0, ['a'], 1, rules({ minItems: 3 }))).toEqual(['a']);
  });

  it('refuses more steps than the rules allow before reading them', () => {
    expect(refusal(() => checkAddedSteps(0, Array.from({ length: 201 }, () => ''), 1, rules())).code).toBe('PLAN_SIZE');
  });
});

describe('checkStepStart', () => {
  const plan = [step('Read', 'DONE'), step('Write', 'IN_PROGRESS'), step('Test')];

  it('refuses a second step in progress under the one-active rule, naming the one in progress', () => {
    const error = refusal(() => checkStepStart(plan, 2, 'IN_PROGRESS', rules({ oneActive: true })));
    expect(error.code).toBe('TOO_MANY_IN_PROGRESS');
    expect(error.message).toContain('step 3 cannot start: step 2 "Write" is already IN_PROGRESS');
  });

  it('accepts it without the rule, restarting the same step, or settling a step', () => {
    expect(() => checkStepStart(plan, 2, 'IN_PROGRESS', rules())).not.toThrow();
    expect(() => checkStepStart(plan, 1, 'IN_PROGRESS', rules({ oneActive: true }))).not.toThrow();
    expect(() => checkStepStart(plan, 2, 'DONE', rules({ oneActive: true }))).not.toThrow();
  });

  it('lets a plan recorded with two in progress settle them', () => {
    const two = [step('a', 'IN_PROGRESS'), step('b', 'IN_PROGRESS')];
    expect(() => checkStepStart(two, 0, 'DONE', rules({ oneActive: true }))).not.toThrow();
  });
});

describe('step messages', () => {
  const plan = [step('Read', 'DONE'), step('Write', 'IN_PROGRESS'), step('Test')];

  it('setPlan gives the size and the counts line', () => {
    expect(planSetMessage([step('a'), step('b')])).toBe('New plan of 2 steps, all PENDING. Updated todo list: 2 pending, 0 in progress, 0 completed.');
  });

  it('addSteps gives the places taken', () => {
    expect(stepsAddedMessage(3, 1, plan)).toBe('Added step 3. Updated todo list: 1 pending, 1 in progress, 1 completed.');
    expect(stepsAddedMessage(2, 2, plan)).toMatch(/^Added steps 2-3\. /);
  });

  it('updateStep gives the step as it now reads', () => {
    expect(stepUpdatedMessage(0, plan)).toBe('Step 1 "Read" is DONE. Updated todo list: 1 pending, 1 in progress, 1 completed.');
  });

  it('clearPlan says how many steps went, or that nothing changed', () => {
    expect(planClearedMessage(3)).toContain('Cleared the plan (3 steps)');
    expect(planClearedMessage(null)).toBe('There is no plan to clear; nothing changed.');
  });
});
