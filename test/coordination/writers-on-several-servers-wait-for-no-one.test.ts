/**
 * Writers on several servers wait for no one (DESIGN.md "Scale-out"). On
 * PostgreSQL three built servers share one database: many writers at once
 * leave a change feed that holds every acknowledged write exactly once, in
 * an order consistent with commits, with no lock that every write takes; one
 * server paused (SIGSTOP) inside write transactions under load, past its
 * sessions' idle timeout, stalls the others' writes to the same domain for
 * less than 3 s and not the change feed, and once it resumes, its cut-off
 * writes answer UNAVAILABLE and recorded nothing; every
 * connection of the pool carries the session timeouts. On SQLite (one
 * server per file, one writer at a time) the same writers go through one
 * server, and the feed test holds the same.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBuiltServers, type BuiltServer } from '../built-server.js';
import { startTestServer, testDatabase, type TestServer } from '../harness.js';
import { ADD_ITEMS, CREATE_NOTE, CREATE_TASK } from '../fixtures/documents.js';
import { readToEnd, type LoggedChange } from '../fixtures/change-feed.js';

const onPostgres = Boolean(process.env.TEST_POSTGRES_URL);
const SERVER_COUNT = onPostgres ? 3 : 1;
/** How long one server is paused: past the sessions' idle-in-transaction timeout (db/postgres-session.ts, 5 s). */
const PAUSE_MS = 8_000;

let servers: BuiltServer[] = [];
let stopServers: (() => Promise<void>) | undefined;
/** PostgreSQL: one more server, in process, on the same database: its pool's settings and the database are read through it. */
let inProcess: TestServer | undefined;

beforeAll(async () => {
  const { file, databaseUrl } = await testDatabase();
  ({ servers, stop: stopServers } = await startBuiltServers(databaseUrl, SERVER_COUNT, 'taskbase-no-wait-'));
  if (onPostgres) inProcess = await startTestServer({ file });
}, 180_000);

afterAll(async () => {
  for (const server of servers) if (server.process.signalCode === null) server.process.kill('SIGCONT');
  await stopServers?.();
  await inProcess?.close();
});

interface Answer { status: number; data?: any; errors?: { message: string; extensions?: { code?: string } }[] }

async function send(server: BuiltServer, query: string, variables: Record<string, unknown>): Promise<Answer> {
  const response = await fetch(`${server.base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
  return { status: response.status, ...((await response.json()) as Omit<Answer, 'status'>) };
}

const codeOf = (answer: Answer): string | null => (answer.errors?.length ? String(answer.errors[0]!.extensions?.code) : null);

describe(`many writers on ${SERVER_COUNT} server${SERVER_COUNT > 1 ? 's' : ''} at once`, () => {
  it('leave a change feed with every acknowledged write exactly once, in an order consistent with commits', async () => {
    const WRITERS_PER_SERVER = 8;
    const WRITES_PER_WRITER = 12;
    // Each acknowledged note, with when its request was sent and when it was answered.
    const acknowledged: { id: string; sent: number; answered: number }[] = [];
    const refused = new Map<string, number>();
    await Promise.all(servers.flatMap((server, s) => Array.from({ length: WRITERS_PER_SERVER }, async (_, w) => {
      for (let n = 0; n < WRITES_PER_WRITER; n += 1) {
        const sent = performance.now();
        const answer = await send(server, CREATE_NOTE, { input: { title: `s${s} w${w} n${n}`, body: 'b', domain: `feedcheck/s${s}` } });
        const code = codeOf(answer);
        if (code) refused.set(code, (refused.get(code) ?? 0) + 1);
        else acknowledged.push({ id: answer.data.createNote.id, sent, answered: performance.now() });
      }
    })));
    expect([...refused]).toEqual([]);

    const { changes } = await readToEnd(async (query, variables) => {
      const answer = await servers[0]!.graphql(query, variables);
      expect(answer.errors).toBeUndefined();
      return answer.data;
    }, null, 'feedcheck', 100);
    const created = changes.filter((change: LoggedChange) => change.action === 'NOTE_CREATED').map((change) => change.memoryId!);
    expect(new Set(created).size).toBe(created.length);
    expect([...created].sort()).toEqual(acknowledged.map((note) => note.id).sort());
    // A write answered before another was sent committed before it: the feed has it first.
    const place = new Map(created.map((id, index) => [id, index]));
    const bySent = [...acknowledged].sort((a, b) => a.sent - b.sent);
    let inversions = 0;
    for (const later of bySent) {
      for (const earlier of acknowledged) {
        if (earlier.answered < later.sent && place.get(earlier.id)! > place.get(later.id)!) inversions += 1;
      }
    }
    expect(inversions).toBe(0);
    console.log(`[feed with ${SERVER_COUNT} servers] ${acknowledged.length} writes from ${SERVER_COUNT * WRITERS_PER_SERVER} writers, each in the feed once, no write before one answered ahead of it`);
  }, 120_000);
});

// Only on PostgreSQL (several servers on one database); SQLite has one server per file, whose writer lock is the process.
if (onPostgres) describe('PostgreSQL sessions (one server per SQLite file: its writer lock is the process)', () => {
  it('every pooled connection carries the idle-in-transaction, lock and statement timeouts and TCP keepalive', async () => {
    const db = inProcess!.app.services.db;
    const shown = async (query: (sql: string) => Promise<Record<string, string>[]>) => {
      const [row] = await query(`SELECT current_setting('idle_in_transaction_session_timeout') AS idle, current_setting('lock_timeout') AS lock,
        current_setting('statement_timeout') AS statement, current_setting('tcp_keepalives_idle') AS keepalive`);
      return row;
    };
    const expected = { idle: '5s', lock: '6s', statement: '30s', keepalive: '5' };
    expect(await shown((sql) => db.reader.query(sql))).toEqual(expected);
    expect(await db.transaction((manager) => shown((sql) => manager.query(sql)))).toEqual(expected);
    expect(await shown(async (sql) => (await db.tail()).query(sql))).toEqual(expected);
  });

  it('one server paused inside write transactions past its sessions\' idle timeout: the others\' writes to the same domain go on with no gap over 3 s and the feed keeps up; resumed, its cut-off writes answer UNAVAILABLE and recorded nothing', async () => {
    const [a, b, paused] = servers as [BuiltServer, BuiltServer, BuiltServer];
    const DOMAIN = 'paused/shared';
    const newTask = async (title: string) => (await send(a, CREATE_TASK, { input: { title, goal: 'g', domain: DOMAIN, items: ['first'] } })).data.createTask.task.id as string;
    const pausedTask = await newTask('The paused server\'s');
    const feedStart = (await readToEnd((query, variables) => a.graphql(query, variables).then((answer) => answer.data), null, 'paused')).cursor;
    let running = true;
    /** When each write through a or b was answered, ms; the notes they created; and every refusal by code. */
    const answeredAt: number[] = [];
    const notes: { id: string; answered: number }[] = [];
    const codes = new Map<string, number>();
    const pausedAnswers: { text: string; code: string | null }[] = [];
    /** Requests to the paused server whose connection was reset unread. */
    const unread: string[] = [];
    let serial = 0;
    // Every write lands in the one domain (its counts); each of the others' writers adds items to a task of its own, the paused server to its own task.
    const writer = async (server: BuiltServer, mine: boolean) => {
      const taskId = mine ? pausedTask : await newTask(`writer ${serial}`);
      while (running) {
        serial += 1;
        const text = `w${serial}`;
        const note = serial % 2 === 0;
        const sending = note
          ? send(server, CREATE_NOTE, { input: { title: text, body: 'b', domain: DOMAIN } })
          : send(server, ADD_ITEMS, { input: { taskId, items: [text] } });
        // A request sent to the paused server on a kept-alive connection may never be read: resumed, its keep-alive
        // timer (5 s, long past) fires before the request is read and Node closes the socket (a reset, no answer).
        const answer = mine ? await sending.catch((error: Error & { cause?: { code?: string } }) => {
          if (error.cause?.code !== 'ECONNRESET') throw error;
          return null;
        }) : await sending;
        if (answer === null) {
          unread.push(text);
          continue;
        }
        const code = codeOf(answer);
        if (mine) pausedAnswers.push({ text, code });
        else if (code !== null) codes.set(code, (codes.get(code) ?? 0) + 1);
        else {
          answeredAt.push(performance.now());
          if (note) notes.push({ id: answer.data.createNote.id, answered: performance.now() });
        }
      }
    };
    const loops = [...Array.from({ length: 4 }, () => writer(a, false)), ...Array.from({ length: 4 }, () => writer(b, false)), ...Array.from({ length: 8 }, () => writer(paused, true))];
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    // Paused at a moment when it holds an open write transaction (pg_stat_activity names its sessions by pid), so
    // something is cut off: stopped between transactions, it is let go and stopped again a moment later.
    const openTransactions = async () => (await inProcess!.app.services.db.reader.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND state = 'idle in transaction'`, [`taskbase-${paused.process.pid}-writer`],
    ))[0].n as number;
    let pausedFrom = performance.now();
    for (let attempt = 0; ; attempt += 1) {
      pausedFrom = performance.now();
      paused.process.kill('SIGSTOP');
      // A statement under way when it stopped finishes; its transaction then waits, idle, for the next one.
      await new Promise((resolve) => setTimeout(resolve, 150));
      if (await openTransactions() > 0 || attempt === 40) break;
      paused.process.kill('SIGCONT');
      await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 100));
    }
    // Longer than the sessions' idle-in-transaction timeout (5 s by default), so PostgreSQL cuts its open transactions off.
    await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
    // Still paused: the feed, read through another server, has every note acknowledged before this read began.
    const readFrom = performance.now();
    const duringPause = await readToEnd((query, variables) => a.graphql(query, variables).then((answer) => answer.data), feedStart, 'paused');
    const pausedUntil = performance.now();
    paused.process.kill('SIGCONT');
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    running = false;
    await Promise.all(loops);

    const during = answeredAt.filter((at) => at >= pausedFrom - 500 && at <= pausedUntil);
    const gaps = [pausedFrom - 500, ...during, pausedUntil].slice(1).map((at, i, all) => at - (i === 0 ? pausedFrom - 500 : all[i - 1]!));
    const longestGap = Math.max(...gaps);
    expect(longestGap).toBeLessThan(3_000);
    // The others were answered, or told to retry; never an internal error.
    expect([...codes.keys()].filter((code) => code !== 'UNAVAILABLE' && code !== 'VERSION_CONFLICT')).toEqual([]);
    const inFeedDuringPause = new Set(duringPause.changes.filter((change) => change.action === 'NOTE_CREATED').map((change) => change.memoryId));
    const acknowledgedBefore = notes.filter((note) => note.answered < readFrom);
    expect(acknowledgedBefore.filter((note) => !inFeedDuringPause.has(note.id))).toEqual([]);
    expect(acknowledgedBefore.filter((note) => note.answered > pausedFrom + 1_000).length).toBeGreaterThan(0);

    // The paused server's writes that were cut off answer UNAVAILABLE, and none of them was recorded.
    const cutOff = pausedAnswers.filter((answer) => answer.code !== null);
    expect(cutOff.filter((answer) => answer.code !== 'UNAVAILABLE')).toEqual([]);
    expect(cutOff.length).toBeGreaterThan(0);
    const texts = new Set([...cutOff.map((answer) => answer.text), ...unread]);
    const recorded: { text: string }[] = await inProcess!.app.services.db.reader.query(
      `SELECT "text" FROM "items" WHERE "text" = ANY($1) UNION ALL SELECT "title" AS "text" FROM "memories" WHERE "title" = ANY($1)`, [[...texts]],
    );
    expect(recorded).toEqual([]);

    // Afterwards the feed holds every acknowledged note once, in log order, and nothing that was cut off.
    const after = await readToEnd((query, variables) => a.graphql(query, variables).then((answer) => answer.data), feedStart, 'paused');
    const created = after.changes.filter((change) => change.action === 'NOTE_CREATED').map((change) => change.memoryId!);
    expect(new Set(created).size).toBe(created.length);
    expect(notes.filter((note) => !created.includes(note.id))).toEqual([]);
    const ids = after.changes.map((change) => change.id);
    expect(new Set(ids).size).toBe(ids.length);
    console.log(`[one of 3 servers paused ${PAUSE_MS / 1000} s] the others: ${during.length} writes answered while it was paused, longest gap ${Math.round(longestGap)} ms` +
      `, refusals ${[...codes].map(([code, n]) => `${code} ${n}`).join(', ') || 'none'}; the feed read during the pause had all ${acknowledgedBefore.length} notes acknowledged before it` +
      `; the paused one: ${cutOff.length} cut-off writes, all UNAVAILABLE, none recorded` +
      (unread.length ? ` (and ${unread.length} requests whose connection its keep-alive timer reset unread, none recorded)` : ''));
  }, 60_000);
});
