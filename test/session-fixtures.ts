/**
 * What the session and plan tests share: the GraphQL documents an agent
 * sends, a session factory, and the checks every refusal test ends with.
 */
import { expect } from 'vitest';
import type { TestServer } from './harness.js';
import { databaseState } from './nothing-recorded.js';

export const RULE_FIELDS = 'rules { oneActive noteRequiredFor minItems maxItems maxTextLength maxNoteLength planOnce }';
export const STEP_FIELDS = 'id number text state note added deleted';
export const PLAN_FIELDS = `id title domain version state goal items(first: 200) { nodes { ${STEP_FIELDS} } } session { id }`;
export const PAYLOAD_FIELDS = `message rendered plan { ${PLAN_FIELDS} }`;
export const SESSION_FIELDS = `id turn finishedAt createdAt statusLine domains ${RULE_FIELDS}
  parent { id } children { id }
  plan { ${PLAN_FIELDS} } standingPlan { id }`;

export const START_SESSION = `mutation($input: StartSessionInput) { startSession(input: $input) { ${SESSION_FIELDS} } }`;
export const READ_SESSION = `query($id: ID!) { session(id: $id) { ${SESSION_FIELDS} } }`;
export const SET_PLAN_RULES = `mutation($rules: PlanRulesInput!) { setPlanRules(rules: $rules) { id ${RULE_FIELDS} plan { id version } } }`;
export const WRITE_TODOS = `mutation($todos: [TodoInput!]!) { writeTodos(todos: $todos) { ${PAYLOAD_FIELDS} } }`;
export const SET_PLAN = `mutation($steps: [String!]!) { setPlan(steps: $steps) { ${PAYLOAD_FIELDS} } }`;
export const ADD_STEPS = `mutation($steps: [String!]!, $after: ID) { addSteps(steps: $steps, after: $after) { ${PAYLOAD_FIELDS} } }`;
export const UPDATE_STEP = `mutation($input: UpdateStepInput!) { updateStep(input: $input) { ${PAYLOAD_FIELDS} } }`;
export const CLEAR_PLAN = `mutation { clearPlan { ${PAYLOAD_FIELDS} } }`;
export const FINISH_SESSION = `mutation { finishSession { id finishedAt statusLine } }`;
export const START_TURN = `mutation { startTurn { id turn plan { id } standingPlan { id } } }`;
export const PLAN_HISTORY = `query($id: ID!) { task(id: $id) { id version history(first: 200) {
  totalCount nodes { action sessionId items { id text state } changes { itemId kind text from to } }
} } }`;
export const PLAN_WITH_DELETED = `query($id: ID!) { task(id: $id) { items(first: 200, includeDeleted: true) { nodes { ${STEP_FIELDS} } } } }`;

export interface Step { id: string; number: number | null; text: string; state: string; note: string | null; added: boolean; deleted: boolean }
export interface Plan { id: string; title: string; domain: string | null; version: number; state: string; items: { nodes: Step[] }; session: { id: string } | null }
export interface PlanPayload { message: string; rendered: string; plan: Plan | null }
export interface HistoryRow {
  action: string;
  sessionId: string | null;
  items: { id: string; text: string; state: string }[];
  changes: { itemId: string; kind: string; text: string; from: string | null; to: string | null }[];
}

/** Starts a session (optionally a helper, optionally with rules) and returns its id. */
export async function startSession(server: TestServer, input?: { parentId?: string; preset?: string; rules?: Record<string, unknown> }): Promise<string> {
  const data = await server.ok(START_SESSION, { input });
  return data.startSession.id;
}

/** Todos in the shape writeTodos takes, from [content, status] pairs. */
export function todos(...entries: [string, string][]) {
  return entries.map(([content, status]) => ({ content, status }));
}

export async function writeTodos(server: TestServer, session: string, entries: [string, string][]): Promise<PlanPayload> {
  return (await server.ok(WRITE_TODOS, { todos: todos(...entries) }, { session })).writeTodos;
}

export async function readSession(server: TestServer, id: string) {
  return (await server.ok(READ_SESSION, { id })).session;
}

export async function planHistory(server: TestServer, taskId: string): Promise<{ version: number; rows: HistoryRow[] }> {
  const { task } = await server.ok(PLAN_HISTORY, { id: taskId });
  return { version: task.version, rows: task.history.nodes };
}

/** The live steps as "text:STATE". */
export function stepsOf(payload: { plan: Plan | null }): string[] {
  return (payload.plan?.items.nodes ?? []).map((step) => `${step.text}:${step.state}`);
}

/**
 * Sends a plan mutation that must be refused with `code`, and checks that
 * nothing was recorded: not a row of any table changed, and (as a client sees
 * it) the session's plan keeps its version, steps and history. Returns the message.
 */
export async function refusedNothingRecorded(
  server: TestServer,
  session: string | undefined,
  code: string,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<string> {
  const before = session ? await readSession(server, session) : null;
  const history = before?.plan ? await planHistory(server, before.plan.id) : null;
  const rows = await databaseState(server);
  const error = await server.refused(query, variables, { session });
  expect(error.code, error.message).toBe(code);
  expect(await databaseState(server), 'a refused call changed a row').toEqual(rows);
  if (session) {
    const after = await readSession(server, session);
    expect(after.plan?.id ?? null).toBe(before.plan?.id ?? null);
    expect(after.plan?.version ?? null).toBe(before.plan?.version ?? null);
    expect(after.plan?.items ?? null).toEqual(before.plan?.items ?? null);
    expect(after.finishedAt).toBe(before.finishedAt);
    if (history) expect((await planHistory(server, before.plan.id)).rows).toEqual(history.rows);
  }
  return error.message;
}
