/**
 * With auth on (TASKBASE_TOKENS), a session belongs to the token that started
 * it: another token naming it in x-session-id is FORBIDDEN for every
 * mutation and changes nothing, and idempotency keys are each token's own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type GraphQLResponse, type TestServer } from '../harness.js';
import {
  ADD_STEPS, CLEAR_PLAN, FINISH_SESSION, SET_PLAN, SET_PLAN_RULES, START_TURN, UPDATE_STEP, WRITE_TODOS, UPDATE_ITEM,
} from '../fixtures/documents.js';
import { databaseState } from '../fixtures/nothing-recorded.js';
import { todos } from '../fixtures/sessions.js';

let server: TestServer;
beforeAll(async () => { server = await startTestServer({ env: { TASKBASE_TOKENS: 'alice-secret,bob-secret' } }); });
afterAll(async () => { await server?.close(); });

const END_TURN = 'mutation { endTurn { text domains } }';
const CREATE_TASK_IDS = `mutation($input: CreateTaskInput!) { createTask(input: $input) { task { id title } items { id text } } }`;
const PLAN_STEPS = `query($id: ID!) { session(id: $id) { plan { id items(first: 50) { nodes { id text state } } } } }`;

function as(token: string, session?: string) {
  return { session, headers: { authorization: `Bearer ${token}` } };
}

function codeOf(result: GraphQLResponse): string {
  return String(result.errors?.[0]?.extensions?.code ?? 'OK');
}

/** Alice's session: a settled plan (so finishSession would pass) and a named domain with an open task (so a reminder is due). */
async function alicesSession(): Promise<{ session: string; stepId: string }> {
  const session = (await server.gql('mutation { startSession { id } }', {}, as('alice-secret'))).data!.startSession.id;
  const written = await server.gql(WRITE_TODOS, { todos: todos(['Read the code', 'DONE'], ['Ship it', 'DONE']) }, as('alice-secret', session));
  expect(written.errors).toBeUndefined();
  const created = await server.gql(CREATE_TASK_IDS, {
    input: { title: `Open work ${session}`, goal: 'Keep it current.', items: ['Still open'], domain: 'owners/alice' },
  }, as('alice-secret', session));
  expect(created.errors).toBeUndefined();
  const plan = (await server.gql(PLAN_STEPS, { id: session }, as('alice-secret'))).data!.session.plan;
  return { session, stepId: plan.items.nodes[0].id };
}

describe('a session of another token', () => {
  it('is FORBIDDEN for every session mutation, and nothing at all is recorded', async () => {
    const { session, stepId } = await alicesSession();
    const mutations: [string, string, Record<string, unknown>][] = [
      ['writeTodos', WRITE_TODOS, { todos: todos(['Taken over', 'PENDING']) }],
      ['setPlan', SET_PLAN, { steps: ['Taken over'] }],
      ['addSteps', ADD_STEPS, { steps: ['One more'] }],
      ['updateStep by number', UPDATE_STEP, { input: { step: 1, state: 'PENDING' } }],
      ['updateStep by id', UPDATE_STEP, { input: { id: stepId, state: 'PENDING' } }],
      ['clearPlan', CLEAR_PLAN, {}],
      ['setPlanRules', SET_PLAN_RULES, { rules: { oneActive: true } }],
      ['finishSession', FINISH_SESSION, {}],
      ['startTurn', START_TURN, {}],
      ['endTurn', END_TURN, {}],
    ];
    for (const [name, query, variables] of mutations) {
      const before = await databaseState(server);
      const result = await server.gql(query, variables, as('bob-secret', session));
      expect(codeOf(result), `${name}: ${JSON.stringify(result.errors)}`).toBe('FORBIDDEN');
      expect(result.errors![0].message).toContain('startSession');
      expect(await databaseState(server), `${name} changed a row`).toEqual(before);
    }
    // The session is untouched and still Alice's: her reminder is still due, and her calls go through.
    const reminder = await server.gql(END_TURN, {}, as('alice-secret', session));
    expect(reminder.errors).toBeUndefined();
    expect(reminder.data!.endTurn?.domains).toEqual(['owners/alice']);
    const finished = await server.gql(FINISH_SESSION, {}, as('alice-secret', session));
    expect(finished.data?.finishSession.finishedAt).toBeTruthy();
  });

  it('is FORBIDDEN for any other mutation naming it too: editing its plan step, or creating a task attributed to it', async () => {
    const { session, stepId } = await alicesSession();
    const before = await databaseState(server);
    const steer = await server.gql(UPDATE_ITEM, { input: { id: stepId, state: 'FAILED', comment: 'not mine' } }, as('bob-secret', session));
    expect(codeOf(steer)).toBe('FORBIDDEN');
    const create = await server.gql(CREATE_TASK_IDS, { input: { title: 'In her name', goal: 'g', items: ['x'], domain: 'owners/bob' } }, as('bob-secret', session));
    expect(codeOf(create)).toBe('FORBIDDEN');
    expect(await databaseState(server)).toEqual(before);
  });

  it('may still be read by another token, which records nothing on it', async () => {
    const { session } = await alicesSession();
    const before = await databaseState(server);
    const read = await server.gql('{ memories(domain: "owners/bob/reading") { totalCount } }', {}, as('bob-secret', session));
    expect(read.errors).toBeUndefined();
    expect((await server.gql(PLAN_STEPS, { id: session }, as('bob-secret'))).data!.session.plan.items.nodes).toHaveLength(2);
    expect(await databaseState(server)).toEqual(before);
  });

  it('can still be steered by the dashboard (another token without x-session-id), as before', async () => {
    const { session, stepId } = await alicesSession();
    const steer = await server.gql(UPDATE_ITEM, { input: { id: stepId, state: 'IN_PROGRESS' } }, as('bob-secret'));
    expect(steer.errors).toBeUndefined();
    const plan = (await server.gql(PLAN_STEPS, { id: session }, as('alice-secret'))).data!.session.plan;
    expect(plan.items.nodes[0].state).toBe('IN_PROGRESS');
  });
});

describe('idempotency keys with auth on', () => {
  const input = (title: string) => ({ title, goal: 'g', items: ['One'], domain: 'owners/keys', idempotencyKey: 'shared-key-1' });

  it('are each token\'s own: the same key from two tokens creates two tasks, each retry answers its own', async () => {
    const alice = await server.gql(CREATE_TASK_IDS, { input: input('Alice keyed') }, as('alice-secret'));
    const bob = await server.gql(CREATE_TASK_IDS, { input: input('Bob keyed') }, as('bob-secret'));
    expect(alice.errors).toBeUndefined();
    expect(bob.errors).toBeUndefined();
    expect(bob.data!.createTask.task.id).not.toBe(alice.data!.createTask.task.id);
    const aliceAgain = await server.gql(CREATE_TASK_IDS, { input: input('Alice keyed') }, as('alice-secret'));
    const bobAgain = await server.gql(CREATE_TASK_IDS, { input: input('Bob keyed') }, as('bob-secret'));
    expect(aliceAgain.data!.createTask.task).toEqual(alice.data!.createTask.task);
    expect(bobAgain.data!.createTask.task).toEqual(bob.data!.createTask.task);
  });

  it('still refuse reuse with other input within one token', async () => {
    await server.gql(CREATE_TASK_IDS, { input: { ...input('First'), idempotencyKey: 'shared-key-2' } }, as('alice-secret'));
    const before = await databaseState(server);
    const reused = await server.gql(CREATE_TASK_IDS, { input: { ...input('Other'), idempotencyKey: 'shared-key-2' } }, as('alice-secret'));
    expect(codeOf(reused)).toBe('BAD_USER_INPUT');
    expect(await databaseState(server)).toEqual(before);
  });
});
