/**
 * Several servers on one database (DESIGN.md "Scale-out"): on PostgreSQL two
 * built server processes (`node dist/src/main.js`) share one database and
 * concurrent agents go through both; on SQLite, where a file has one server
 * process, the same clients go through one. Every acknowledged change must be
 * present exactly once, a lost race is a coded refusal (never an internal
 * error), and history matches what was acknowledged. The figures are printed
 * for the closing note.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabase } from '../harness.js';
import { startBuiltServers, type BuiltServer } from '../built-server.js';

/** Two processes on PostgreSQL; one on SQLite (one server process per SQLite file). */
const SERVER_COUNT = process.env.TEST_POSTGRES_URL ? 2 : 1;
const DATABASE = process.env.TEST_POSTGRES_URL ? 'PostgreSQL' : 'SQLite';

let servers: BuiltServer[] = [];
let stopServers: (() => Promise<void>) | undefined;

beforeAll(async () => {
  const { databaseUrl } = await testDatabase();
  ({ servers, stop: stopServers } = await startBuiltServers(databaseUrl, SERVER_COUNT, 'taskbase-multi-'));
}, 120_000);

afterAll(async () => {
  await stopServers?.();
  servers = [];
});

interface Answer { data?: any; errors?: { message: string; extensions?: { code?: string } }[] }

let sent = 0;
/** One GraphQL request through server `via` (round-robin when omitted), as session `session` when given. */
async function call(query: string, variables: Record<string, unknown> = {}, options: { session?: string; via?: number } = {}): Promise<Answer> {
  const server = servers[(options.via ?? sent) % servers.length]!;
  sent += 1;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (options.session) headers['x-session-id'] = options.session;
  const response = await fetch(`${server.base}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
  return (await response.json()) as Answer;
}

async function ok(query: string, variables: Record<string, unknown> = {}, options: { session?: string; via?: number } = {}): Promise<any> {
  const answer = await call(query, variables, options);
  if (answer.errors?.length) throw new Error(`unexpected errors: ${JSON.stringify(answer.errors)}`);
  return answer.data;
}

function codeOf(answer: Answer): string | null {
  return answer.errors?.length ? String(answer.errors[0]!.extensions?.code) : null;
}

/** Tallies of refusals by code; INTERNAL_SERVER_ERROR (or any uncoded failure) is what must never appear. */
class Tally {
  readonly codes = new Map<string, number>();
  acknowledged = 0;
  count(answer: Answer): boolean {
    const code = codeOf(answer);
    if (code === null) {
      this.acknowledged += 1;
      return true;
    }
    this.codes.set(code, (this.codes.get(code) ?? 0) + 1);
    return false;
  }
  get refused(): number {
    return [...this.codes.values()].reduce((a, b) => a + b, 0);
  }
  summary(): string {
    return [...this.codes.entries()].map(([code, n]) => `${code} ${n}`).join(', ') || 'none';
  }
}

const START_SESSION_ID = 'mutation($input: StartSessionInput) { startSession(input: $input) { id } }';
const WRITE_TODOS_STEPS = 'mutation($todos: [TodoInput!]!) { writeTodos(todos: $todos) { plan { id items(first: 100) { nodes { id text } } } } }';
const UPDATE_STEP_PLAN_ID = 'mutation($input: UpdateStepInput!) { updateStep(input: $input) { plan { id } } }';
const UPDATE_ITEM_TEXT = 'mutation($input: UpdateItemInput!) { updateItem(input: $input) { id text } }';
const ADD_ITEMS_TEXT = 'mutation($input: AddItemsInput!) { addItems(input: $input) { items { id text } } }';
const DELETE_ITEM_ID = 'mutation($id: ID!) { deleteItem(id: $id) { id } }';
const CREATE_TASK_TEXT = 'mutation($input: CreateTaskInput!) { createTask(input: $input) { task { id version } items { id text } } }';
const READ_TASK_TEXT = 'query($id: ID!) { task(id: $id) { id version items(first: 200) { nodes { id text } } } }';
const END_TURN = 'mutation { endTurn { text domains } }';
const HISTORY = `query($id: ID!, $after: String) { task(id: $id) { version history(first: 200, after: $after) {
  totalCount pageInfo { hasNextPage endCursor } nodes { action sessionId items { id text } changes { itemId kind text } }
} } }`;

interface HistoryRow { action: string; sessionId: string | null; items: { id: string; text: string }[]; changes: { itemId: string; kind: string; text: string }[] }

async function historyOf(taskId: string): Promise<{ version: number; rows: HistoryRow[] }> {
  const rows: HistoryRow[] = [];
  let after: string | null = null;
  for (;;) {
    const { task } = await ok(HISTORY, { id: taskId, after });
    rows.push(...task.history.nodes);
    if (!task.history.pageInfo.hasNextPage) return { version: task.version, rows };
    after = task.history.pageInfo.endCursor;
  }
}

/** Runs `workers` loops of `rounds` steps each, all at once. */
async function concurrently(workers: number, rounds: number, step: (worker: number, round: number) => Promise<void>): Promise<void> {
  await Promise.all(Array.from({ length: workers }, async (_, worker) => {
    for (let round = 0; round < rounds; round += 1) await step(worker, round);
  }));
}

describe(`${SERVER_COUNT} server process(es) on one ${DATABASE} database`, () => {
  it('an agent writing its plan while the dashboard changes the same plan: no internal error, every acknowledged change recorded', async () => {
    const session = (await ok(START_SESSION_ID, { input: { rules: { maxItems: 100, noteRequiredFor: [] } } })).startSession.id;
    const base = Array.from({ length: 8 }, (_, i) => `Base step ${i + 1}`);
    const first = await ok(WRITE_TODOS_STEPS, { todos: base.map((content) => ({ content, status: 'PENDING' })) }, { session });
    const planId: string = first.writeTodos.plan.id;
    let knownIds: string[] = first.writeTodos.plan.items.nodes.map((step: { id: string }) => step.id);

    const tally = new Tally();
    const acked = { PLAN_WRITTEN: [] as string[], ITEM_STATE: 0, ITEM_RENAMED: [] as { id: string; text: string }[], ITEMS_ADDED: [] as string[], ITEM_DELETED: [] as string[] };
    const pick = (n: number) => knownIds[n % knownIds.length]!;
    // 6 agent loops (writeTodos, updateStep) and 6 dashboard loops (updateItem, addItems, deleteItem), 25 requests each: 300.
    await concurrently(12, 25, async (worker, round) => {
      const n = worker * 100 + round;
      if (worker < 6) {
        if (round % 2 === 0) {
          const marker = `Agent write ${n}`;
          const answer = await call(WRITE_TODOS_STEPS, { todos: [...base, marker].map((content, i) => ({ content, status: i === round % 9 ? 'IN_PROGRESS' : 'PENDING' })) }, { session, via: n });
          if (tally.count(answer)) {
            acked.PLAN_WRITTEN.push(marker);
            knownIds = answer.data.writeTodos.plan.items.nodes.map((step: { id: string }) => step.id);
          }
        } else {
          const answer = await call(UPDATE_STEP_PLAN_ID, { input: { step: 1 + (n % 8), state: ['PENDING', 'IN_PROGRESS', 'DONE'][n % 3], note: `agent note ${n}` } }, { session, via: n });
          if (tally.count(answer)) acked.ITEM_STATE += 1;
        }
      } else if (round % 3 === 0) {
        const id = pick(n);
        const text = `Dashboard label ${n}`;
        if (tally.count(await call(UPDATE_ITEM_TEXT, { input: { id, text } }, { via: n }))) acked.ITEM_RENAMED.push({ id, text });
      } else if (round % 3 === 1) {
        const answer = await call(ADD_ITEMS_TEXT, { input: { taskId: planId, items: [`Dashboard added ${n}`] } }, { via: n });
        if (tally.count(answer)) acked.ITEMS_ADDED.push(answer.data.addItems.items[0].id);
      } else {
        const id = pick(n + 3);
        if (tally.count(await call(DELETE_ITEM_ID, { id }, { via: n }))) acked.ITEM_DELETED.push(id);
      }
    });

    console.log(
      `[lock-order race, ${SERVER_COUNT} server(s) on ${DATABASE}] requests ${tally.acknowledged + tally.refused}, ` +
        `acknowledged ${tally.acknowledged}, refused ${tally.refused} (${tally.summary()})`,
    );
    // Lost races are coded refusals a caller can act on, never an internal error.
    expect(tally.codes.has('INTERNAL_SERVER_ERROR'), tally.summary()).toBe(false);
    for (const code of tally.codes.keys()) expect(['DELETED_ITEM', 'NOT_FOUND', 'DUPLICATE_TEXT', 'PLAN_SIZE', 'STEP_OUT_OF_RANGE']).toContain(code);
    expect(tally.acknowledged).toBeGreaterThan(150);

    // Every acknowledged change is one history row, and the row holds the change.
    const { version, rows } = await historyOf(planId);
    const later = rows.slice(1);
    expect(rows.length).toBe(1 + tally.acknowledged);
    expect(version).toBe(rows.length);
    const byAction = (action: string) => later.filter((row) => row.action === action);
    expect(byAction('PLAN_WRITTEN').length).toBe(acked.PLAN_WRITTEN.length);
    expect(byAction('ITEM_STATE').length).toBe(acked.ITEM_STATE);
    for (const marker of acked.PLAN_WRITTEN) {
      expect(byAction('PLAN_WRITTEN').filter((row) => row.items.some((item) => item.text === marker)), marker).toHaveLength(1);
    }
    for (const { id, text } of acked.ITEM_RENAMED) {
      expect(byAction('ITEM_RENAMED').filter((row) => row.changes.some((c) => c.itemId === id && c.kind === 'RENAMED' && c.text === text)), text).toHaveLength(1);
    }
    for (const id of acked.ITEMS_ADDED) {
      expect(byAction('ITEMS_ADDED').filter((row) => row.changes.some((c) => c.itemId === id && c.kind === 'ADDED')), id).toHaveLength(1);
    }
    for (const id of acked.ITEM_DELETED) {
      expect(byAction('ITEM_DELETED').filter((row) => row.changes.some((c) => c.itemId === id && c.kind === 'REMOVED')), id).toHaveLength(1);
    }
    // The plan reads as its last recorded list.
    const plan = (await ok(READ_TASK_TEXT, { id: planId })).task;
    expect(plan.items.nodes.map((item: { id: string; text: string }) => `${item.id}:${item.text}`))
      .toEqual(rows.at(-1)!.items.map((item) => `${item.id}:${item.text}`));
  }, 180_000);

  it('concurrent agents through every server: each acknowledged change once, conflicts coded, versions growing, one reminder per session', async () => {
    const AGENTS = 8;
    const ROUNDS = 16;
    const TASKS = 3;
    const ORIGINAL = 10;
    const shared: { id: string; items: string[] }[] = [];
    for (let t = 0; t < TASKS; t += 1) {
      const created = (await ok(CREATE_TASK_TEXT, {
        input: { title: `Shared task ${t}`, goal: 'Worked by everyone at once.', items: Array.from({ length: ORIGINAL }, (_, i) => `Original ${t}.${i}`), domain: 'multi/shared' },
      })).createTask;
      shared.push({ id: created.task.id as string, items: created.items.map((item: { id: string }) => item.id) as string[] });
    }
    const sessions: string[] = [];
    for (let a = 0; a < AGENTS; a += 1) sessions.push((await ok(START_SESSION_ID, {}, { via: a })).startSession.id);

    const tally = new Tally();
    let conflicts = 0;
    const renames: { taskId: string; itemId: string; text: string; session: string }[] = [];
    const added: { taskId: string; text: string }[] = [];
    const plans = new Map<string, string[]>();
    // What each agent read of each task's version, in the order it read them.
    const observed = new Map<string, number[]>();
    const observe = (agent: number, taskId: string, version: number) => {
      const key = `${agent}:${taskId}`;
      observed.set(key, [...(observed.get(key) ?? []), version]);
    };

    await concurrently(AGENTS, ROUNDS, async (agent, round) => {
      const session = sessions[agent]!;
      const via = agent + round;
      const task = shared[(agent + round) % TASKS]!;
      const n = `${agent}.${round}`;
      switch (round % 4) {
        case 0: { // updateItem without expectedVersion: last writer wins, but every change is recorded
          const itemId = task.items[(agent * 3 + round) % ORIGINAL]!;
          const text = `Renamed ${n}`;
          if (tally.count(await call(UPDATE_ITEM_TEXT, { input: { id: itemId, text } }, { session, via }))) renames.push({ taskId: task.id, itemId, text, session });
          break;
        }
        case 1: { // updateItem with expectedVersion: applied on the version read, or VERSION_CONFLICT
          const { task: read } = await ok(READ_TASK_TEXT, { id: task.id }, { via: via + 1 });
          observe(agent, task.id, read.version);
          const itemId = task.items[(agent * 5 + round) % ORIGINAL]!;
          const text = `Checked ${n}`;
          const answer = await call(UPDATE_ITEM_TEXT, { input: { id: itemId, text, expectedVersion: read.version } }, { session, via });
          if (tally.count(answer)) renames.push({ taskId: task.id, itemId, text, session });
          else if (codeOf(answer) === 'VERSION_CONFLICT') conflicts += 1;
          break;
        }
        case 2: { // addItems with labels of its own
          const text = `Added ${n}`;
          if (tally.count(await call(ADD_ITEMS_TEXT, { input: { taskId: task.id, items: [text] } }, { session, via }))) added.push({ taskId: task.id, text });
          break;
        }
        default: { // writeTodos on its own session's plan
          const texts = [`Plan of agent ${agent} round ${round}`, 'Report back'];
          if (tally.count(await call(WRITE_TODOS_STEPS, { todos: texts.map((content) => ({ content, status: 'PENDING' })) }, { session, via }))) {
            plans.set(session, [...(plans.get(session) ?? []), texts[0]!]);
          }
        }
      }
      const { task: after } = await ok(READ_TASK_TEXT, { id: task.id }, { via });
      observe(agent, task.id, after.version);
    });

    // endTurn racing for one reminder: each session ends its turn 4 times at once, through every server.
    const reminders = await Promise.all(sessions.map(async (session, s) => {
      const answers = await Promise.all(Array.from({ length: 4 }, (_, i) => call(END_TURN, {}, { session, via: s + i })));
      for (const answer of answers) expect(answer.errors, JSON.stringify(answer.errors)).toBeUndefined();
      return answers.filter((answer) => answer.data!.endTurn !== null).length;
    }));

    const writes = tally.acknowledged;
    console.log(
      `[multi-server invariants, ${SERVER_COUNT} server(s) on ${DATABASE}] clients ${AGENTS}, mutations ${writes + tally.refused}, ` +
        `acknowledged writes ${writes}, conflicts ${conflicts}, other refusals ${tally.refused - conflicts} (${tally.summary()}), ` +
        `reminders ${reminders.reduce((a, b) => a + b, 0)} for ${AGENTS} sessions`,
    );
    // The only refusal a lost race gives here is VERSION_CONFLICT; nothing else failed.
    expect([...tally.codes.keys()].filter((code) => code !== 'VERSION_CONFLICT'), tally.summary()).toEqual([]);
    expect(writes).toBeGreaterThan(AGENTS * ROUNDS / 2);
    // Every session named the shared domain, which has open tasks, so each is due exactly one reminder in the interval.
    expect(reminders).toEqual(sessions.map(() => 1));

    for (const task of shared) {
      const { version, rows } = await historyOf(task.id);
      const mine = <T extends { taskId: string }>(list: T[]): T[] => list.filter((entry) => entry.taskId === task.id);
      // History rows match the acknowledged changes one for one; the version counts them.
      expect(rows.length).toBe(1 + mine(renames).length + mine(added).length);
      expect(version).toBe(rows.length);
      // Versions only grow: through whichever server, no agent's later read saw an older version than its earlier one.
      for (let agent = 0; agent < AGENTS; agent += 1) {
        const seen = observed.get(`${agent}:${task.id}`) ?? [];
        expect(seen, `agent ${agent} on task ${task.id}`).toEqual([...seen].sort((a, b) => a - b));
        for (const v of seen) expect(v).toBeLessThanOrEqual(version);
      }
      for (const { itemId, text, session } of mine(renames)) {
        const recorded = rows.filter((row) => row.changes.some((c) => c.itemId === itemId && c.kind === 'RENAMED' && c.text === text));
        expect(recorded, text).toHaveLength(1);
        expect(recorded[0]!.sessionId).toBe(session);
      }
      // No update lost silently: each item reads as the last rename recorded for it, and each added label is there once.
      const final = (await ok(READ_TASK_TEXT, { id: task.id })).task.items.nodes as { id: string; text: string }[];
      expect(final.map((item) => `${item.id}:${item.text}`)).toEqual(rows.at(-1)!.items.map((item) => `${item.id}:${item.text}`));
      for (const { text } of mine(added)) expect(final.filter((item) => item.text === text), text).toHaveLength(1);
      expect(final).toHaveLength(ORIGINAL + mine(added).length);
    }
    for (const [session, markers] of plans) {
      const plan = (await ok('query($id: ID!) { session(id: $id) { plan { id } } }', { id: session })).session.plan;
      const { rows } = await historyOf(plan.id);
      // One agent per session writes in turn, so its plan's history is its acknowledged writes in order.
      expect(rows.map((row) => row.items[0]!.text)).toEqual(markers);
    }
  }, 180_000);
});
