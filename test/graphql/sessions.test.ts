/**
 * Agent sessions over HTTP: starting one (with rules, as a helper), what a
 * session shows (plan, standing plan, status line, domains), turns,
 * finishing against the plan, who may change a plan, persistence across a
 * restart, and many sessions writing at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import {
  FINISH_SESSION, PLAN_HISTORY, READ_SESSION, SET_PLAN_RULES, START_SESSION, START_TURN, UPDATE_STEP, WRITE_TODOS, UPDATE_ITEM,
} from '../fixtures/documents.js';
import { refusedAndNothingRecorded } from '../fixtures/nothing-recorded.js';
import { planHistory, readSession, startSession, stepsOf, todos, writeTodos } from '../fixtures/sessions.js';

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

describe('startSession', () => {
  it('makes a session with a server-made id and the WHOLE_LIST rules', async () => {
    const { startSession: session } = await server.ok(START_SESSION, {});
    expect(session.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(session).toMatchObject({
      turn: 0, finishedAt: null, statusLine: 'planning', domains: [], parent: null, children: [], plan: null, standingPlan: null,
      rules: { oneActive: false, noteRequiredFor: [], minItems: 0, maxItems: 200, maxTextLength: 500, maxNoteLength: 20000, planOnce: false },
    });
    expect(new Date(session.createdAt).getTime()).not.toBeNaN();
    const other = await startSession(server);
    expect(other).not.toBe(session.id);
  });

  it('merges the rules given onto the defaults', async () => {
    const { startSession: session } = await server.ok(START_SESSION, { input: { rules: { oneActive: true, maxItems: 7 } } });
    expect(session.rules).toEqual({ oneActive: true, noteRequiredFor: [], minItems: 0, maxItems: 7, maxTextLength: 500, maxNoteLength: 20000, planOnce: false });
  });

  it('starts from a preset, the rules given beside it overriding it field by field', async () => {
    const stepOps = (await server.ok(START_SESSION, { input: { preset: 'STEP_OPS' } })).startSession;
    expect(stepOps.rules).toEqual({ oneActive: false, noteRequiredFor: ['DONE'], minItems: 0, maxItems: 200, maxTextLength: 500, maxNoteLength: 20000, planOnce: false });
    const finish = (await server.ok(START_SESSION, { input: { preset: 'PLAN_AND_FINISH', rules: { oneActive: true, maxItems: 12 } } })).startSession;
    expect(finish.rules).toEqual({ oneActive: true, noteRequiredFor: ['BLOCKED', 'DROPPED'], minItems: 2, maxItems: 12, maxTextLength: 160, maxNoteLength: 400, planOnce: true });
  });

  it('refuses rules out of range, and a parent that does not exist', async () => {
    const bad = await server.refused(START_SESSION, { input: { rules: { minItems: 5, maxItems: 2 } } });
    expect(bad.code).toBe('BAD_USER_INPUT');
    expect(bad.message).toContain('minItems 5 and maxItems 2');
    expect((await server.refused(START_SESSION, { input: { rules: { maxNoteLength: 0 } } })).code).toBe('BAD_USER_INPUT');
    const orphan = await server.refused(START_SESSION, { input: { parentId: 'no-such-session' } });
    expect(orphan.code).toBe('NOT_FOUND');
    expect(orphan.message).toContain('"no-such-session"');
  });

  it('session(id) is null for an unknown id', async () => {
    expect(await readSession(server, 'nobody')).toBeNull();
  });
});

describe('setPlanRules', () => {
  it('changes only the fields given', async () => {
    const session = await startSession(server, { rules: { maxItems: 9 } });
    const data = await server.ok(SET_PLAN_RULES, { rules: { noteRequiredFor: ['DONE'], minItems: 1 } }, { session });
    expect(data.setPlanRules.rules).toEqual({ oneActive: false, noteRequiredFor: ['DONE'], minItems: 1, maxItems: 9, maxTextLength: 500, maxNoteLength: 20000, planOnce: false });
    expect((await readSession(server, session)).rules).toEqual(data.setPlanRules.rules);
  });

  it('refuses bad rules and keeps the old ones', async () => {
    const session = await startSession(server);
    expect((await server.refused(SET_PLAN_RULES, { rules: { maxTextLength: 0 } }, { session })).code).toBe('BAD_USER_INPUT');
    expect((await readSession(server, session)).rules.maxTextLength).toBe(500);
  });
});

describe('session mutations need the calling session', () => {
  it.each([
    ['setPlanRules', SET_PLAN_RULES, { rules: { oneActive: true } }],
    ['finishSession', FINISH_SESSION, {}],
    ['startTurn', START_TURN, {}],
    ['endTurn', 'mutation { endTurn { text } }', {}],
  ])('%s without a started session is refused with NO_SESSION and the to-do tool message', async (_name, query, variables) => {
    for (const session of [undefined, 'not-a-session']) {
      const error = await server.refused(query, variables, { session });
      expect(error).toEqual({ code: 'NO_SESSION', message: 'todo_write requires an owning agent session' });
    }
  });
});

describe('helper sessions', () => {
  it('name their parent; the parent lists its children; each plan is its own', async () => {
    const parent = await startSession(server);
    const first = await startSession(server, { parentId: parent });
    const second = await startSession(server, { parentId: parent });
    const grandchild = await startSession(server, { parentId: first });

    const read = await readSession(server, parent);
    expect(read.parent).toBeNull();
    expect(read.children.map((child: { id: string }) => child.id)).toEqual([first, second]);
    expect((await readSession(server, grandchild)).parent).toEqual({ id: first });

    const parentPlan = await writeTodos(server, parent, [['Split the work', 'IN_PROGRESS'], ['Merge the results', 'PENDING']]);
    const helperPlan = await writeTodos(server, first, [['Read module A', 'PENDING']]);
    expect(helperPlan.plan!.id).not.toBe(parentPlan.plan!.id);
    expect(helperPlan.plan!.session).toEqual({ id: first });
    expect(stepsOf(await readSession(server, parent))).toEqual(['Split the work:IN_PROGRESS', 'Merge the results:PENDING']);
    expect((await readSession(server, second)).plan).toBeNull();
  });

  it('may not change each other\'s plans: FORBIDDEN by updateItem and by updateStep with an id', async () => {
    const parent = await startSession(server);
    const helper = await startSession(server, { parentId: parent });
    const stranger = await startSession(server);
    const plan = await writeTodos(server, parent, [['Split the work', 'IN_PROGRESS']]);
    const step = plan.plan!.items.nodes[0]!;

    for (const session of [helper, stranger]) {
      const byItem = await refusedAndNothingRecorded(server, 'FORBIDDEN', UPDATE_ITEM, { input: { id: step.id, state: 'DONE', comment: 'done by someone else' } }, { session });
      expect(byItem).toContain('another session');
      await writeTodos(server, session, [['My own step', 'PENDING']]);
      const byStep = await refusedAndNothingRecorded(server, 'FORBIDDEN', UPDATE_STEP, { input: { id: step.id, state: 'DONE', note: 'not mine to say' } }, { session });
      expect(byStep).toContain("another session's plan");
    }
    // The owner's plan is as it was: no row, no version bump.
    const { version, rows } = await planHistory(server, plan.plan!.id);
    expect(version).toBe(1);
    expect(rows).toHaveLength(1);
    expect(stepsOf(await readSession(server, parent))).toEqual(['Split the work:IN_PROGRESS']);
  });
});

describe('Task.session', () => {
  it('names the owner of a plan and is null for a knowledge-base task', async () => {
    const session = await startSession(server);
    const plan = await writeTodos(server, session, [['One', 'PENDING']]);
    const read = await server.ok(`query($id: ID!) { task(id: $id) { session { id } } }`, { id: plan.plan!.id });
    expect(read.task.session).toEqual({ id: session });
    const created = await server.ok(`mutation { createTask(input: { title: "KB", goal: "g", items: ["x"], domain: "acme/kb" }) { task { id session { id } } } }`);
    expect(created.createTask.task.session).toBeNull();
  });
});

describe('domains', () => {
  it('lists the domains the session named, sorted', async () => {
    const session = await startSession(server);
    for (const domain of ['zeta/web', 'acme/checkout']) {
      await server.ok(`mutation($d: String!) { createTask(input: { title: "T", goal: "g", items: ["x"], domain: $d }) { task { id } } }`, { d: domain }, { session });
    }
    expect((await readSession(server, session)).domains).toEqual(['acme/checkout', 'zeta/web']);
  });
});

describe('turns and the standing plan', () => {
  it('startTurn counts the turn and clears the standing plan; the plan stays; the next update shows it again', async () => {
    const session = await startSession(server);
    const plan = await writeTodos(server, session, [['Read the code', 'IN_PROGRESS'], ['Fix it', 'PENDING']]);
    const shown = await readSession(server, session);
    expect(shown.standingPlan).toEqual({ id: plan.plan!.id });
    expect(shown.statusLine).toBe('0/2 · Read the code');

    const turn = (await server.ok(START_TURN, {}, { session })).startTurn;
    expect(turn).toEqual({ id: session, turn: 1, plan: { id: plan.plan!.id }, standingPlan: null });
    expect((await server.ok(START_TURN, {}, { session })).startTurn.turn).toBe(2);

    await server.ok(UPDATE_STEP, { input: { step: 1, state: 'DONE', note: 'read parser.ts' } }, { session });
    const again = await readSession(server, session);
    expect(again.standingPlan).toEqual({ id: plan.plan!.id });
    expect(again.statusLine).toBe('1/2 · Fix it');
    expect(again.turn).toBe(2);
  });

  it('a session with no plan has no standing plan either', async () => {
    const session = await startSession(server);
    expect((await server.ok(START_TURN, {}, { session })).startTurn).toMatchObject({ turn: 1, plan: null, standingPlan: null });
  });
});

describe('finishSession', () => {
  it('is refused with NO_PLAN when nothing was ever planned', async () => {
    const session = await startSession(server);
    const message = await refusedAndNothingRecorded(server, 'NO_PLAN', FINISH_SESSION, {}, { session });
    expect(message).toContain('say what you intend to do');
  });

  it('is refused with PLAN_OPEN while steps are open, counting and listing them, then records finishedAt', async () => {
    const session = await startSession(server);
    await writeTodos(server, session, [['Read the code', 'DONE'], ['Fix the parser', 'IN_PROGRESS'], ['Run the suite', 'PENDING']]);
    const message = await refusedAndNothingRecorded(server, 'PLAN_OPEN', FINISH_SESSION, {}, { session });
    expect(message).toContain('2 of 3 steps are still open');
    expect(message).toContain('2. Fix the parser (IN_PROGRESS)');
    expect(message).toContain('3. Run the suite (PENDING)');
    expect(message).toContain('BLOCKED or DROPPED');

    await server.ok(UPDATE_STEP, { input: { step: 2, state: 'DONE', note: 'parser test passes' } }, { session });
    await server.ok(UPDATE_STEP, { input: { step: 3, state: 'BLOCKED', note: 'CI is down' } }, { session });
    const finished = (await server.ok(FINISH_SESSION, {}, { session })).finishSession;
    expect(finished.finishedAt).not.toBeNull();
    expect(finished.statusLine).toBe('3/3 · stuck: Run the suite (blocked)');
    // Finishing again keeps the first finishedAt.
    expect((await server.ok(FINISH_SESSION, {}, { session })).finishSession.finishedAt).toBe(finished.finishedAt);
  });

  it('a plan update after finishing clears finishedAt, so the session must finish again', async () => {
    const session = await startSession(server);
    await writeTodos(server, session, [['Ship it', 'DONE']]);
    expect((await server.ok(FINISH_SESSION, {}, { session })).finishSession.finishedAt).not.toBeNull();
    await writeTodos(server, session, [['Ship it', 'DONE'], ['Answer the follow-up', 'IN_PROGRESS']]);
    expect((await readSession(server, session)).finishedAt).toBeNull();
    expect((await server.refused(FINISH_SESSION, {}, { session })).code).toBe('PLAN_OPEN');
  });
});

describe('persistence', () => {
  it('keeps sessions, plans and history across a restart on the same database file', async () => {
    const first = await startTestServer();
    const file = first.file;
    const parent = (await first.ok(START_SESSION, { input: { rules: { oneActive: true } } })).startSession.id;
    const helper = (await first.ok(START_SESSION, { input: { parentId: parent } }, {})).startSession.id;
    await first.ok(WRITE_TODOS, { todos: todos(['Read the code', 'IN_PROGRESS'], ['Fix it', 'PENDING']) }, { session: parent });
    await first.ok(UPDATE_STEP, { input: { step: 1, state: 'DONE', note: 'read it' } }, { session: parent });
    await first.ok(START_TURN, {}, { session: parent });
    const before = (await first.ok(READ_SESSION, { id: parent })).session;
    const history = (await first.ok(PLAN_HISTORY, { id: before.plan.id })).task;
    await first.close();

    const second = await startTestServer({ file });
    try {
      const after = (await second.ok(READ_SESSION, { id: parent })).session;
      expect(after).toEqual(before);
      expect(after.children).toEqual([{ id: helper }]);
      expect(after.rules.oneActive).toBe(true);
      expect(after.plan.items.nodes.map((step: { text: string; state: string; note: string | null }) => [step.text, step.state, step.note]))
        .toEqual([['Read the code', 'DONE', 'read it'], ['Fix it', 'PENDING', null]]);
      expect((await second.ok(PLAN_HISTORY, { id: before.plan.id })).task).toEqual(history);
      // The same session goes on working after the restart, under the rules it had.
      const next = (await second.ok(UPDATE_STEP, { input: { step: 2, state: 'IN_PROGRESS' } }, { session: parent })).updateStep;
      expect(next.message).toBe('Step 2 "Fix it" is IN_PROGRESS. Updated todo list: 0 pending, 1 in progress, 1 completed.');
    } finally {
      await second.close();
    }
  });
});

describe('many sessions at once', () => {
  it('20 sessions writing their plans concurrently: no cross-talk, nothing lost', async () => {
    const sessions = await Promise.all(Array.from({ length: 20 }, () => startSession(server)));
    const listFor = (n: number, round: number) =>
      todos(...Array.from({ length: 3 }, (_, i): [string, string] => [`Session ${n} step ${i + 1}`, i < round ? 'DONE' : 'PENDING']));
    for (let round = 0; round < 3; round += 1) {
      const results = await Promise.all(sessions.map((session, n) => server.gql(WRITE_TODOS, { todos: listFor(n, round) }, { session })));
      for (const result of results) expect(result.errors).toBeUndefined();
    }
    await Promise.all(sessions.map((session) => server.ok(UPDATE_STEP, { input: { step: 3, state: 'IN_PROGRESS' } }, { session })));

    for (const [n, session] of sessions.entries()) {
      const read = await readSession(server, session);
      expect(read.plan.session).toEqual({ id: session });
      expect(stepsOf(read)).toEqual([`Session ${n} step 1:DONE`, `Session ${n} step 2:DONE`, `Session ${n} step 3:IN_PROGRESS`]);
      const { version, rows } = await planHistory(server, read.plan.id);
      expect(version).toBe(4);
      expect(rows.map((row) => row.action)).toEqual(['PLAN_WRITTEN', 'PLAN_WRITTEN', 'PLAN_WRITTEN', 'ITEM_STATE']);
      expect(rows.every((row) => row.sessionId === session)).toBe(true);
      // Ids were kept across the three writes: one item per text, never re-made.
      expect(new Set(rows.flatMap((row) => row.items.map((item) => item.id))).size).toBe(3);
    }
    const planIds = new Set(await Promise.all(sessions.map(async (session) => (await readSession(server, session)).plan.id)));
    expect(planIds.size).toBe(20);
  });
});
