import { describe, expect, it } from 'vitest';
import { refusal } from '../../test/fixtures/refusal.js';
import {
  DEFAULT_PLAN_RULES,
  PRESET_RULES,
  checkPlan,
  checkPlanNotLocked,
  checkRulesChange,
  checkTodoNotes,
  keptNote,
  startingRules,
  withRuleDefaults,
  checkPlanResize,
  checkPlanSize,
  checkStepNote,
  checkStepText,
  mergePlanRules,
  planMessage,
  renderPlan,
  statusLine,
  stepIndex,
  whyNotFinished,
  type PlanRules,
  type PlanStep,
} from './plan-rules.js';
import type { ItemState } from './states.js';


function step(text: string, state: ItemState = 'PENDING', note: string | null = null, added = false): PlanStep {
  return { text, state, note, added };
}

function steps(count: number, state: ItemState = 'PENDING'): PlanStep[] {
  return Array.from({ length: count }, (_, i) => step(`Step ${i + 1}`, state));
}

const rules = (change: Partial<PlanRules> = {}): PlanRules => ({ ...DEFAULT_PLAN_RULES, ...change });

describe('presets', () => {
  it('are the published presets, WHOLE_LIST the default', () => {
    const common = { oneActive: false, minItems: 0, maxItems: 200, maxTextLength: 500, maxNoteLength: 20_000, planOnce: false };
    expect(PRESET_RULES.WHOLE_LIST).toEqual({ ...common, noteRequiredFor: [] });
    expect(PRESET_RULES.STEP_OPS).toEqual({ ...common, noteRequiredFor: ['DONE'] });
    expect(PRESET_RULES.PLAN_AND_FINISH).toEqual({
      oneActive: false, noteRequiredFor: ['BLOCKED', 'DROPPED'], minItems: 2, maxItems: 20, maxTextLength: 160, maxNoteLength: 400, planOnce: true,
    });
    expect(DEFAULT_PLAN_RULES).toBe(PRESET_RULES.WHOLE_LIST);
  });

  it('cannot be changed by a caller', () => {
    expect(() => {
      (DEFAULT_PLAN_RULES as { maxItems: number }).maxItems = 3;
    }).toThrow(TypeError);
    expect(() => PRESET_RULES.STEP_OPS.noteRequiredFor.push('PENDING')).toThrow(TypeError);
    expect(DEFAULT_PLAN_RULES.maxItems).toBe(200);
  });

  it('start a session from the preset, rules given beside it overriding field by field', () => {
    expect(startingRules(null, null)).toEqual(PRESET_RULES.WHOLE_LIST);
    expect(startingRules('PLAN_AND_FINISH', { oneActive: true, maxNoteLength: 100 })).toEqual({
      ...PRESET_RULES.PLAN_AND_FINISH, oneActive: true, maxNoteLength: 100,
    });
    expect(startingRules('STEP_OPS', { noteRequiredFor: ['DONE', 'IN_PROGRESS'] }).noteRequiredFor).toEqual(['DONE', 'IN_PROGRESS']);
  });

  it('fill rules a stored session lacks from the defaults', () => {
    const stored = { oneActive: true, noteRequiredFor: ['DONE'], minItems: 0, maxItems: 9, maxTextLength: 160 } as Partial<PlanRules>;
    expect(withRuleDefaults(stored)).toEqual({ ...stored, maxNoteLength: 20_000, planOnce: false });
  });
});

describe('mergePlanRules', () => {
  it('keeps every field the change leaves out', () => {
    expect(mergePlanRules(DEFAULT_PLAN_RULES, { oneActive: true })).toEqual({ ...DEFAULT_PLAN_RULES, oneActive: true });
  });

  it('treats null as not given', () => {
    const change = { maxItems: null, noteRequiredFor: null } as unknown as Partial<PlanRules>;
    expect(mergePlanRules(DEFAULT_PLAN_RULES, change)).toEqual(DEFAULT_PLAN_RULES);
  });

  it('returns a copy that shares no array with the base', () => {
    const merged = mergePlanRules(DEFAULT_PLAN_RULES, {});
    merged.noteRequiredFor.push('DONE');
    expect(DEFAULT_PLAN_RULES.noteRequiredFor).toHaveLength(0);
  });

  it('deduplicates noteRequiredFor, keeping first appearance', () => {
    const merged = mergePlanRules(DEFAULT_PLAN_RULES, { noteRequiredFor: ['BLOCKED', 'DONE', 'BLOCKED'] });
    expect(merged.noteRequiredFor).toEqual(['BLOCKED', 'DONE']);
  });

  it('accepts an empty noteRequiredFor', () => {
    expect(mergePlanRules(DEFAULT_PLAN_RULES, { noteRequiredFor: [] }).noteRequiredFor).toEqual([]);
  });

  it.each(['PENDING', 'IN_PROGRESS'] as const)('accepts %s in noteRequiredFor: a session may ask why a step moved there', (state) => {
    expect(mergePlanRules(DEFAULT_PLAN_RULES, { noteRequiredFor: ['DONE', state] }).noteRequiredFor).toEqual(['DONE', state]);
  });

  it('accepts maxNoteLength from 1 to 20,000 and refuses outside it', () => {
    expect(mergePlanRules(DEFAULT_PLAN_RULES, { maxNoteLength: 1 }).maxNoteLength).toBe(1);
    for (const maxNoteLength of [0, 20_001, 2.5]) {
      const error = refusal(() => mergePlanRules(DEFAULT_PLAN_RULES, { maxNoteLength }));
      expect(error.code).toBe('BAD_USER_INPUT');
      expect(error.message).toContain('maxNoteLength');
    }
  });

  it('refuses a state that does not exist', () => {
    const change = { noteRequiredFor: ['FINISHED'] } as unknown as Partial<PlanRules>;
    expect(refusal(() => mergePlanRules(DEFAULT_PLAN_RULES, change)).message).toContain('FINISHED');
  });

  it('accepts the edges of each range', () => {
    expect(mergePlanRules(DEFAULT_PLAN_RULES, { minItems: 0, maxItems: 0 })).toMatchObject({ minItems: 0, maxItems: 0 });
    expect(mergePlanRules(DEFAULT_PLAN_RULES, { minItems: 200, maxItems: 200 })).toMatchObject({ minItems: 200, maxItems: 200 });
    expect(mergePlanRules(DEFAULT_PLAN_RULES, { maxTextLength: 1 }).maxTextLength).toBe(1);
    expect(mergePlanRules(DEFAULT_PLAN_RULES, { maxTextLength: 1000 }).maxTextLength).toBe(1000);
  });

  it.each([
    [{ minItems: -1 }],
    [{ maxItems: 201 }],
    [{ minItems: 201 }],
    [{ minItems: 5, maxItems: 4 }],
    [{ minItems: 1.5 }],
    [{ maxItems: Number.NaN }],
  ])('refuses size rules %j, giving the allowed range', (change) => {
    const error = refusal(() => mergePlanRules(DEFAULT_PLAN_RULES, change));
    expect(error.code).toBe('BAD_USER_INPUT');
    expect(error.message).toContain('0 <= minItems <= maxItems <= 200');
  });

  it('judges minItems against the maxItems already in force', () => {
    const tight = mergePlanRules(DEFAULT_PLAN_RULES, { maxItems: 3 });
    expect(refusal(() => mergePlanRules(tight, { minItems: 4 })).message).toContain('minItems 4 and maxItems 3');
  });

  it.each([0, 1001, 2.5])('refuses maxTextLength %d, giving the range', (maxTextLength) => {
    const error = refusal(() => mergePlanRules(DEFAULT_PLAN_RULES, { maxTextLength }));
    expect(error.code).toBe('BAD_USER_INPUT');
    expect(error.message).toContain('from 1 to 1000');
  });
});

describe('checkPlan', () => {
  it('holds step texts to every text\'s character rules, naming the step', () => {
    expect(refusal(() => checkPlan([step('Read'), step('Write\u0000')], rules())).message).toContain('step 2 contains a NUL character');
    expect(refusal(() => checkPlan([step('Pay \u202Eemosewa')], rules())).message).toContain('step 1 holds U+202E RIGHT-TO-LEFT OVERRIDE');
  });

  it('accepts a step that repeats an earlier one: only the whole list refuses repeats (whole-list.ts)', () => {
    expect(() => checkPlan([step('Run the tests'), step('Fix the failures'), step(' Run the tests ')], rules())).not.toThrow();
  });

  it('accepts a plan within the rules, and an empty one by default', () => {
    expect(() => checkPlan([step('Read'), step('Write', 'IN_PROGRESS'), step('Test', 'IN_PROGRESS')], rules())).not.toThrow();
    expect(() => checkPlan([], rules())).not.toThrow();
  });

  it('refuses an empty step with the to-do tool message', () => {
    const error = refusal(() => checkPlan([step('Read'), step('  ')], rules()));
    expect(error.code).toBe('EMPTY_TEXT');
    expect(error.message).toBe('invalid todo: `content` must be a non-empty string');
  });

  it('allows a step exactly at maxTextLength and refuses one over, giving length and limit', () => {
    expect(() => checkPlan([step('x'.repeat(500))], rules())).not.toThrow();
    const error = refusal(() => checkPlan([step('ok'), step('x'.repeat(501))], rules()));
    expect(error.code).toBe('TEXT_TOO_LONG');
    expect(error.message).toContain('step 2');
    expect(error.message).toContain('501 characters');
    expect(error.message).toContain('at most 500');
    expect(error.details).toEqual({ step: 2, count: 501, limit: 500 });
  });

  it('counts characters, not UTF-16 units', () => {
    expect(() => checkPlan([step('🚀'.repeat(10))], rules({ maxTextLength: 10 }))).not.toThrow();
  });

  it('keeps a step carrying [[#4]] as plain text', () => {
    expect(() => checkPlan([step('Fix [[#4]]')], rules())).not.toThrow();
  });

  it('refuses a plan smaller than minItems, giving count and range', () => {
    const error = refusal(() => checkPlan(steps(1), rules({ minItems: 2 })));
    expect(error.code).toBe('PLAN_SIZE');
    expect(error.message).toContain('1 step;');
    expect(error.message).toContain('2 to 200');
    expect(error.details).toEqual({ count: 1, limit: 2 });
  });

  it('refuses a plan larger than maxItems, giving count and range', () => {
    expect(() => checkPlan(steps(200), rules())).not.toThrow();
    const error = refusal(() => checkPlan(steps(201), rules()));
    expect(error.code).toBe('PLAN_SIZE');
    expect(error.message).toContain('201 steps');
    expect(error.message).toContain('0 to 200');
    expect(error.details).toEqual({ count: 201, limit: 200 });
  });

  it('refuses two steps in progress under the one-active rule, with the exact message', () => {
    expect(() => checkPlan([step('A', 'IN_PROGRESS'), step('B')], rules({ oneActive: true }))).not.toThrow();
    const error = refusal(() =>
      checkPlan([step('A', 'IN_PROGRESS'), step('B', 'IN_PROGRESS'), step('C', 'IN_PROGRESS')], rules({ oneActive: true })),
    );
    expect(error.code).toBe('TOO_MANY_IN_PROGRESS');
    expect(error.message).toBe('invalid todos: at most one task may be in_progress (got 3)');
  });

  it('checks the texts before minItems, and maxItems before any text', () => {
    expect(refusal(() => checkPlan([step('')], rules({ minItems: 2 }))).code).toBe('EMPTY_TEXT');
    expect(refusal(() => checkPlan([step(''), step('b'), step('c')], rules({ maxItems: 2 }))).code).toBe('PLAN_SIZE');
  });
});

describe('checkStepNote', () => {
  const all = rules({ noteRequiredFor: ['DONE', 'FAILED', 'BLOCKED', 'DROPPED'] });

  it('accepts a note for a state that needs one, and no note for one that does not', () => {
    expect(() => checkStepNote('DONE', 'ran npm test: 38 passed', all)).not.toThrow();
    expect(() => checkStepNote('IN_PROGRESS', null, all)).not.toThrow();
    expect(() => checkStepNote('PENDING', undefined, all)).not.toThrow();
    expect(() => checkStepNote('DONE', null, DEFAULT_PLAN_RULES)).not.toThrow();
  });

  it('asks for a note on IN_PROGRESS when the rules name it, naming the step', () => {
    const error = refusal(() => checkStepNote('IN_PROGRESS', ' ', rules({ noteRequiredFor: ['IN_PROGRESS'] }), { n: 2, text: 'Build' }));
    expect(error.code).toBe('NOTE_REQUIRED');
    expect(error.message).toContain('step 2 "Build" IN_PROGRESS');
  });

  it('needs no note for a state the rules leave out', () => {
    expect(() => checkStepNote('DONE', null, rules({ noteRequiredFor: ['BLOCKED'] }))).not.toThrow();
  });

  it.each([
    ['DONE', 'what you checked'],
    ['FAILED', 'what you checked'],
    ['BLOCKED', 'why'],
    ['DROPPED', 'why'],
  ] as const)('refuses %s without a note, naming the state and asking for %s', (state, ask) => {
    for (const note of [null, undefined, '', '  \n ']) {
      const error = refusal(() => checkStepNote(state, note, all));
      expect(error.code).toBe('NOTE_REQUIRED');
      expect(error.message).toContain(state);
      expect(error.message).toContain(ask);
    }
  });
});

describe('stepIndex', () => {
  it('turns a 1-based step into a 0-based index', () => {
    expect(stepIndex(1, 4)).toBe(0);
    expect(stepIndex(4, 4)).toBe(3);
  });

  it.each([0, 5, -1, 2.5])('refuses step %d of 4, giving the length', (n) => {
    const error = refusal(() => stepIndex(n, 4));
    expect(error.code).toBe('STEP_OUT_OF_RANGE');
    expect(error.message).toContain('the plan has 4 steps; use 1..4');
  });

  it('uses the singular for a plan of one step', () => {
    expect(refusal(() => stepIndex(2, 1)).message).toContain('the plan has 1 step; use 1.');
  });

  it('says so for an empty plan', () => {
    const error = refusal(() => stepIndex(1, 0));
    expect(error.code).toBe('STEP_OUT_OF_RANGE');
    expect(error.message).toContain('the plan has no steps');
  });
});

describe('planMessage', () => {
  it('counts the whole list; completed counts DONE only', () => {
    const plan = [
      step('a', 'DONE'),
      step('b', 'DONE'),
      step('c', 'IN_PROGRESS'),
      step('d'),
      step('e', 'BLOCKED'),
      step('f', 'DROPPED'),
      step('g', 'FAILED'),
    ];
    expect(planMessage(plan)).toBe('Updated todo list: 1 pending, 1 in progress, 2 completed.');
  });

  it('reads zeros for an empty list', () => {
    expect(planMessage([])).toBe('Updated todo list: 0 pending, 0 in progress, 0 completed.');
  });
});

describe('renderPlan', () => {
  it('renders each state with its glyph and 1-based number', () => {
    const plan = (['PENDING', 'IN_PROGRESS', 'DONE', 'BLOCKED', 'DROPPED', 'FAILED'] as const).map((state) => step(state.toLowerCase(), state));
    expect(renderPlan(plan)).toBe(
      ['[ ] 1. pending', '[~] 2. in_progress', '[x] 3. done', '[!] 4. blocked', '[-] 5. dropped', '[f] 6. failed'].join('\n'),
    );
  });

  it('adds the note and marks steps added later', () => {
    expect(
      renderPlan([step('Run the tests', 'DONE', 'ran npm test, 38 passed'), step('Document it', 'PENDING', null, true), step('Both', 'DROPPED', 'not needed', true)]),
    ).toBe('[x] 1. Run the tests - ran npm test, 38 passed\n[ ] 2. Document it (added)\n[-] 3. Both - not needed (added)');
  });

  it('leaves out an empty or blank note', () => {
    expect(renderPlan([step('A', 'DONE', ''), step('B', 'DONE', '   ')])).toBe('[x] 1. A\n[x] 2. B');
  });

  it('keeps one line per step when a note spans lines', () => {
    expect(renderPlan([step('A', 'FAILED', 'timed out\r\n  twice\n')])).toBe('[f] 1. A - timed out twice');
  });

  it('renders unicode text as is', () => {
    expect(renderPlan([step('Prüfen 検証 🚀')])).toBe('[ ] 1. Prüfen 検証 🚀');
  });

  it('renders an empty plan as "(no steps)"', () => {
    expect(renderPlan([])).toBe('(no steps)');
  });
});

describe('statusLine', () => {
  it('reads "planning" before any plan', () => {
    expect(statusLine(null)).toBe('planning');
  });

  it('counts settled steps and names the step in progress', () => {
    const plan = [step('a', 'DONE'), step('b', 'DROPPED'), step('c'), step('installing dependencies', 'IN_PROGRESS'), step('e', 'FAILED'), step('f', 'BLOCKED'), step('g')];
    expect(statusLine(plan)).toBe('4/7 · installing dependencies');
  });

  it('names the first pending step when none is in progress', () => {
    expect(statusLine([step('a', 'DONE'), step('next'), step('later')])).toBe('1/3 · next');
  });

  it('reads "wrapping up" once every step is settled, or for an empty plan', () => {
    expect(statusLine([step('a', 'DONE'), step('b', 'BLOCKED')])).toBe('2/2 · wrapping up');
    expect(statusLine([])).toBe('0/0 · wrapping up');
  });
});

describe('whyNotFinished', () => {
  it('lets a session finish once every step is settled, or with an empty plan', () => {
    expect(whyNotFinished([step('a', 'DONE'), step('b', 'DROPPED'), step('c', 'BLOCKED'), step('d', 'FAILED')])).toBeNull();
    expect(whyNotFinished([])).toBeNull();
  });

  it('counts and lists the open steps by number, asking to finish or settle them with a reason', () => {
    const text = whyNotFinished([step('Read', 'DONE'), step('Write', 'IN_PROGRESS'), step('Test', 'DONE'), step('Ship')]);
    expect(text).not.toBeNull();
    expect(text).toContain('2 of 4 steps are still open');
    expect(text).toContain('  2. Write (IN_PROGRESS)');
    expect(text).toContain('  4. Ship (PENDING)');
    expect(text).not.toContain('Read');
    expect(text).toContain('BLOCKED or DROPPED');
    expect(text).toContain('reason');
  });

  it('uses the singular for one open step', () => {
    expect(whyNotFinished([step('Only')])).toContain('1 of 1 step is still open');
  });
});

describe('checkStepText', () => {
  it('returns the trimmed text and names the step by the number given', () => {
    expect(checkStepText('  Run the tests ', 4, rules())).toBe('Run the tests');
    const error = refusal(() => checkStepText('x'.repeat(11), 7, rules({ maxTextLength: 10 })));
    expect(error.code).toBe('TEXT_TOO_LONG');
    expect(error.message).toContain('step 7 is 11 characters');
  });
});

describe('checkPlanSize', () => {
  it('accepts the bounds and refuses outside them with PLAN_SIZE', () => {
    expect(() => checkPlanSize(2, rules({ minItems: 2, maxItems: 3 }))).not.toThrow();
    expect(() => checkPlanSize(3, rules({ minItems: 2, maxItems: 3 }))).not.toThrow();
    expect(refusal(() => checkPlanSize(1, rules({ minItems: 2, maxItems: 3 }))).message).toContain('1 step;');
    expect(refusal(() => checkPlanSize(4, rules({ minItems: 2, maxItems: 3 }))).code).toBe('PLAN_SIZE');
  });
});

describe('checkPlanResize', () => {
  const rules = mergePlanRules(DEFAULT_PLAN_RULES, { minItems: 2, maxItems: 3 });

  it('judges growing by maxItems and shrinking by minItems only', () => {
    expect(refusal(() => checkPlanResize(3, 4, rules)).code).toBe('PLAN_SIZE');
    expect(refusal(() => checkPlanResize(2, 1, rules)).code).toBe('PLAN_SIZE');
    expect(() => checkPlanResize(5, 4, rules)).not.toThrow();
    expect(() => checkPlanResize(0, 1, rules)).not.toThrow();
  });
});

describe('checkTodoNotes', () => {
  const stepOps = PRESET_RULES.STEP_OPS;

  it('asks a note of an entry whose state moves into one that needs it, new entries included', () => {
    const previous = new Map([['1', 'IN_PROGRESS' as ItemState]]);
    expect(refusal(() => checkTodoNotes([{ id: '1', text: 'Build', state: 'DONE', note: null }], previous, stepOps)).code).toBe('NOTE_REQUIRED');
    const fresh = refusal(() => checkTodoNotes([{ id: null, text: 'Ship', state: 'DONE' }], new Map(), stepOps));
    expect(fresh.message).toContain('step 1 "Ship" DONE');
  });

  it('needs nothing new of an entry that keeps its recorded state, or that carries its note', () => {
    const previous = new Map([['1', 'DONE' as ItemState]]);
    expect(() => checkTodoNotes([{ id: '1', text: 'Build', state: 'DONE', note: null }], previous, stepOps)).not.toThrow();
    expect(() => checkTodoNotes([{ id: null, text: 'Ship', state: 'DONE', note: 'deployed, /healthz 200' }], previous, stepOps)).not.toThrow();
  });
});

describe('keptNote', () => {
  it('trims, keeps the first maxNoteLength characters, and makes an empty note null', () => {
    expect(keptNote('  ran it  ', DEFAULT_PLAN_RULES)).toBe('ran it');
    expect(keptNote('x'.repeat(450), PRESET_RULES.PLAN_AND_FINISH)).toBe('x'.repeat(400));
    expect(keptNote('🙂'.repeat(5), rules({ maxNoteLength: 3 }))).toBe('🙂🙂🙂');
    expect(keptNote('   ', DEFAULT_PLAN_RULES)).toBeNull();
    expect(keptNote(null, DEFAULT_PLAN_RULES)).toBeNull();
  });
});

describe('checkPlanNotLocked', () => {
  const once = PRESET_RULES.PLAN_AND_FINISH;

  it.each(['writeTodos', 'setPlan', 'clearPlan', 'rename', 'move', 'delete'] as const)('refuses the session\'s %s of a written plan, pointing to addSteps and updateStep', (rewrite) => {
    const error = refusal(() => checkPlanNotLocked(once, true, true, rewrite));
    expect(error.code).toBe('PLAN_LOCKED');
    expect(error.message).toContain('updateStep');
    expect(error.message).toContain('addSteps');
  });

  it('lets the first write through, a caller without a session edit, and rules without planOnce do anything', () => {
    expect(() => checkPlanNotLocked(once, false, true, 'writeTodos')).not.toThrow();
    expect(() => checkPlanNotLocked(once, true, false, 'rename')).not.toThrow();
    expect(() => checkPlanNotLocked(DEFAULT_PLAN_RULES, true, true, 'setPlan')).not.toThrow();
  });
});

describe('checkRulesChange', () => {
  const once = PRESET_RULES.PLAN_AND_FINISH;

  it('refuses loosening a planOnce session: planOnce off, or a state no longer needing its note', () => {
    expect(refusal(() => checkRulesChange(once, { ...once, planOnce: false })).code).toBe('PLAN_LOCKED');
    expect(refusal(() => checkRulesChange(once, { ...once, noteRequiredFor: ['BLOCKED'] })).message).toContain('DROPPED');
  });

  it('accepts tightening it, and any change without planOnce', () => {
    expect(() => checkRulesChange(once, { ...once, noteRequiredFor: ['BLOCKED', 'DROPPED', 'DONE'], oneActive: true })).not.toThrow();
    expect(() => checkRulesChange(DEFAULT_PLAN_RULES, { ...DEFAULT_PLAN_RULES, planOnce: true })).not.toThrow();
  });
});
