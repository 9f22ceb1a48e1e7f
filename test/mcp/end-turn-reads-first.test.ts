/**
 * endTurn decides on the reader whether a reminder can be due: a turn with
 * nothing due (reminded within the interval, no domain named, nothing open
 * in them, reminders off) costs one or two reads and never opens a write
 * transaction, so it neither queues behind other writes nor holds them up;
 * a due one adds one short write (the conditional UPDATE that claims it and
 * its change-log row). Counted on both connections while the call runs, the
 * reads on the read connection alone; the same few statements whatever the
 * number of domains and open tasks.
 */
import Sqlite from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';

const onPostgres = Boolean(process.env.TEST_POSTGRES_URL);

// The server's clock is injected: the interval passes by moving it.
let now = new Date('2026-11-30T09:00:00.000Z');
const advanceMinutes = (minutes: number) => { now = new Date(now.getTime() + minutes * 60_000); };

let all: string[] = [];
let reads: string[] = [];
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ clock: () => now, onQuery: (sql) => all.push(sql), onReadQuery: (sql) => reads.push(sql) });
});
afterAll(async () => { await server?.close(); });

const START = 'mutation { startSession { id } }';
const END_TURN = 'mutation { endTurn { text domains tasks { id title } } }';
const CREATE = 'mutation($input: CreateTaskInput!) { createTask(input: $input) { task { id } items { id } } }';
const SET_ITEM_STATE = 'mutation($id: ID!, $state: ItemState!) { updateItem(input: { id: $id, state: $state }) { id } }';

async function newSession(): Promise<string> {
  return (await server.ok(START)).startSession.id;
}

/** `count` open tasks in `domain`, made by `session` (which names the domain), the first item of each in progress. */
async function tasksIn(domain: string, session: string, count = 1): Promise<{ id: string; items: string[] }[]> {
  const made = [];
  for (let i = 0; i < count; i += 1) {
    const data = await server.ok(CREATE, { input: { title: `Task ${i} in ${domain}`, goal: 'Keep it current.', items: ['First', 'Second'], domain } }, { session });
    const task = { id: data.createTask.task.id as string, items: data.createTask.items.map((item: { id: string }) => item.id) as string[] };
    await server.ok(SET_ITEM_STATE, { id: task.items[0], state: 'IN_PROGRESS' }, { session });
    made.push(task);
  }
  return made;
}

interface Cost { all: number; reads: number; writes: string[] }

/** The statements one endTurn of `session` sends, on both connections (what the writer got: `writes`), and its answer. */
async function endTurnCost(session: string): Promise<Cost & { reminder: { text: string; domains: string[] } | null }> {
  all = [];
  reads = [];
  const reminder = (await server.ok(END_TURN, {}, { session })).endTurn;
  const own = (list: string[]) => list.filter((sql) => !SUBSCRIPTIONS_READ.test(sql));
  const writes = own(all);
  for (const sql of own(reads)) writes.splice(writes.indexOf(sql), 1);
  return { all: own(all).length, reads: own(reads).length, writes, reminder };
}

/**
 * What the subscriptions read once per session change (change-bridge.ts, the session's parent), after the
 * commit and apart from the call: it may land inside the call's count or after it, so it is not counted.
 */
const SUBSCRIPTIONS_READ = /^SELECT "parentId" FROM "sessions"/;

/**
 * The fewest statements of like calls: the server's own background work
 * (pruning the change log once a minute) may land inside one of them, never
 * inside both.
 */
function fewest(costs: Cost[]): Cost {
  const least = costs.reduce((fewer, cost) => (cost.all < fewer.all ? cost : fewer));
  return { all: least.all, reads: least.reads, writes: least.writes };
}

/** A write transaction's statements: its start, any write, its end. */
const WRITING = /^\s*(BEGIN|START TRANSACTION|COMMIT|INSERT|UPDATE|DELETE|SELECT pg_advisory)/i;

describe('a turn with nothing due costs reads only', () => {
  it('reminded within the interval: one read, nothing on the writer; the turn after the interval reminds again', async () => {
    const sessions = [await newSession(), await newSession()];
    for (const session of sessions) await tasksIn(`turn/recent-${sessions.indexOf(session)}`, session);
    for (const session of sessions) expect((await endTurnCost(session)).reminder).not.toBeNull();
    const costs = [await endTurnCost(sessions[0]), await endTurnCost(sessions[1])];
    expect(costs.map((cost) => cost.reminder)).toEqual([null, null]);
    const quiet = fewest(costs);
    expect(quiet).toEqual({ all: 1, reads: 1, writes: [] });
    advanceMinutes(30);
    expect((await endTurnCost(sessions[0])).reminder?.text).toContain('Task 0 in turn/recent-0');
  });

  it('no domain named, or reminders off: one read; domains with nothing open: two; none writes', async () => {
    const named = await newSession();
    const none = fewest([await endTurnCost(await newSession()), await endTurnCost(await newSession())]);
    expect(none).toEqual({ all: 1, reads: 1, writes: [] });

    const [task] = await tasksIn('turn/settled', named);
    for (const id of task.items) await server.ok(SET_ITEM_STATE, { id, state: 'DONE' }, { session: named });
    const settled = fewest([await endTurnCost(named), await endTurnCost(named)]);
    expect(settled).toEqual({ all: 2, reads: 2, writes: [] });

    const open = await newSession();
    await tasksIn('turn/off', open);
    await server.ok('mutation { updateReminderSettings(enabled: false) { enabled } }');
    try {
      const off = fewest([await endTurnCost(open), await endTurnCost(open)]);
      expect(off).toEqual({ all: 1, reads: 1, writes: [] });
    } finally {
      await server.ok('mutation { updateReminderSettings(enabled: true) { enabled } }');
    }
    // Off did not use up the interval: the first turn after reminds.
    expect((await endTurnCost(open)).reminder).not.toBeNull();
  });

  it('a due turn: three reads and one short write that claims it, the same for 6 domains and 30 open tasks as for 1 and 1', async () => {
    const small = await newSession();
    await tasksIn('turn/due-small', small);
    const large = await newSession();
    for (let d = 0; d < 6; d += 1) await tasksIn(`turn/due-large/${d}`, large, 5);
    const costs = [await endTurnCost(small), await endTurnCost(large)];
    expect(costs.map((cost) => cost.reminder?.domains)).toEqual([['turn/due-small'], Array.from({ length: 6 }, (_, d) => `turn/due-large/${d}`)]);
    for (const cost of costs) {
      // The session, settings and domains; the open tasks; their items in progress or stuck.
      expect(cost.reads).toBe(3);
      // The write: its start, the claim, the change-log row (on PostgreSQL into the change queue, with no lock: readers
      // move it into the log after the commit), its end. The caller's session is not read again: this process
      // committed it, and remembers it (a session's id and owner never change).
      expect(cost.writes.filter((sql) => /^\s*UPDATE/i.test(sql))).toEqual([expect.stringMatching(/^UPDATE "sessions" SET "lastRemindedAt"/)]);
      const logged = cost.writes.filter((sql) => (onPostgres ? /^\s*INSERT INTO "change_queue"/ : /^\s*INSERT INTO "changes"/).test(sql));
      expect(logged).toHaveLength(1);
      expect(logged[0]).not.toMatch(/pg_advisory_xact_lock/);
      expect(cost.writes).toHaveLength(4);
    }
  });

  it('refuses a call without a started session on the reader alone', async () => {
    for (const session of [undefined, 'no-such-session']) {
      all = [];
      reads = [];
      expect((await server.refused(END_TURN, {}, { session })).code).toBe('NO_SESSION');
      expect(all.filter((sql) => WRITING.test(sql))).toEqual([]);
    }
  });
});

describe('a turn with nothing due does not wait for the writer', () => {
  it('answers while another connection holds the write lock (SQLite) or the session row (PostgreSQL)', { timeout: 60_000 }, async () => {
    const session = await newSession();
    await tasksIn('turn/held', session);
    expect((await endTurnCost(session)).reminder).not.toBeNull();
    const release = await holdWrites(session);
    try {
      // Before, this turn waited for the lock: on SQLite 5 s and then failed busy, on PostgreSQL until the holder ended.
      // endTurn is nullable: a refusal answers null too, so the answer must have no errors.
      const answer = await server.gql(END_TURN, {}, { session });
      expect(answer.errors).toBeUndefined();
      expect(answer.data).toEqual({ endTurn: null });
    } finally {
      await release();
    }
  });
});

/** Takes what a write of the session would wait for, from a connection of its own; the function given back lets go. */
async function holdWrites(session: string): Promise<() => Promise<void>> {
  if (onPostgres) {
    const client = new pg.Client({ connectionString: server.databaseUrl });
    await client.connect();
    await client.query('BEGIN');
    await client.query('SELECT "id" FROM "sessions" WHERE "id" = $1 FOR UPDATE', [session]);
    return async () => { await client.query('ROLLBACK'); await client.end(); };
  }
  const db = new Sqlite(server.file);
  db.exec('BEGIN IMMEDIATE');
  return async () => { db.exec('ROLLBACK'); db.close(); };
}
