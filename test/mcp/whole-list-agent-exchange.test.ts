/**
 * A whole-list agent exchange as the docs show it, as an agent sends it:
 * start a session, write the to-do list twice (ids kept for the same text),
 * settle a step with its validation, try to finish too early, then finish.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { FINISH_SESSION, START_SESSION, UPDATE_STEP, WRITE_TODOS } from '../fixtures/documents.js';
import { todos } from '../fixtures/sessions.js';

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

it('startSession, writeTodos twice, updateStep, finishSession refused then accepted', async () => {
  const session = (await server.ok(START_SESSION, {})).startSession.id as string;

  const first = (await server.ok(WRITE_TODOS, {
    todos: todos(['Reproduce the failing import', 'IN_PROGRESS'], ['Fix the date parser', 'PENDING'], ['Run the test suite', 'PENDING']),
  }, { session })).writeTodos;
  expect(first.message).toBe('Updated todo list: 2 pending, 1 in progress, 0 completed.');
  expect(first.rendered).toBe('[~] 1. Reproduce the failing import\n[ ] 2. Fix the date parser\n[ ] 3. Run the test suite');
  const ids = Object.fromEntries(first.plan.items.nodes.map((step: { text: string; id: string }) => [step.text, step.id]));

  const second = (await server.ok(WRITE_TODOS, {
    todos: todos(['Reproduce the failing import', 'DONE'], ['Fix the date parser', 'IN_PROGRESS'], ['Run the test suite', 'PENDING']),
  }, { session })).writeTodos;
  expect(second.message).toBe('Updated todo list: 1 pending, 1 in progress, 1 completed.');
  expect(second.plan.items.nodes.map((step: { text: string; id: string }) => step.id)).toEqual(
    ['Reproduce the failing import', 'Fix the date parser', 'Run the test suite'].map((text) => ids[text]),
  );

  const step = (await server.ok(UPDATE_STEP, {
    input: { step: 2, state: 'DONE', note: 'parser.test.ts: 12 passed, including the ISO week case' },
  }, { session })).updateStep;
  expect(step.message).toBe('Step 2 "Fix the date parser" is DONE. Updated todo list: 1 pending, 0 in progress, 2 completed.');
  expect(step.rendered).toBe(
    '[x] 1. Reproduce the failing import\n[x] 2. Fix the date parser - parser.test.ts: 12 passed, including the ISO week case\n[ ] 3. Run the test suite',
  );

  const early = await server.refused(FINISH_SESSION, {}, { session });
  expect(early.code).toBe('PLAN_OPEN');
  expect(early.message).toBe(
    '1 of 3 steps is still open:\n  3. Run the test suite (PENDING)\n' +
      'Finish them (updateStep to DONE with a note on what you checked), or mark each one BLOCKED or DROPPED with a note giving the reason. ' +
      'Then call finishSession again.',
  );

  await server.ok(UPDATE_STEP, { input: { step: 3, state: 'DONE', note: 'npm test: 214 passed, 0 failed' } }, { session });
  const finished = (await server.ok(FINISH_SESSION, {}, { session })).finishSession;
  expect(finished.id).toBe(session);
  expect(finished.finishedAt).not.toBeNull();
  expect(finished.statusLine).toBe('3/3 · wrapping up');
});
