/**
 * The change log across processes: writes from several server processes and
 * a `taskbase mcp` process (on SQLite, where a file has one server, the
 * server and two stdio processes) reach a subscriber of one server in log
 * order, none missing and none twice; on PostgreSQL also across its LISTEN
 * connection killed (pg_terminate_backend) and restored. And a change that
 * commits late with an earlier id is not skipped: ids become visible in the
 * order they were given (on PostgreSQL the writers append under one
 * advisory lock; on SQLite the file's write lock). Figures are printed for
 * the closing note.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenerName } from '../../src/db/change-channel.js';
import { startTestServer, type TestServer } from '../harness.js';
import { root, startBuiltServer, type BuiltServer } from '../built-server.js';
import { CREATE_NOTE } from '../fixtures/documents.js';
import { DOMAIN_CHANGED, subscribe, whenHeld, type Live } from '../fixtures/live.js';
import { heardUntil, loggedUnder, newestLogId, stdioAgent, type StdioAgent } from '../fixtures/change-log.js';

const onPostgres = Boolean(process.env.TEST_POSTGRES_URL);
const DATABASE = onPostgres ? 'PostgreSQL' : 'SQLite';
let server: TestServer;
let others: BuiltServer[] = [];
let agents: StdioAgent[] = [];
const live: Live[] = [];
let workDir: string;

beforeAll(async () => {
  server = await startTestServer({ env: { LOG_LEVEL: process.env.DEBUG_LOG ?? 'silent' } });
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskbase-change-log-'));
  // PostgreSQL: two more built servers and one stdio process write; SQLite: two stdio processes beside the one server.
  [others, agents] = await Promise.all([
    onPostgres ? Promise.all([startBuiltServer(server.databaseUrl, workDir, 90_000), startBuiltServer(server.databaseUrl, workDir, 90_000)]) : Promise.resolve([]),
    Promise.all(Array.from({ length: onPostgres ? 1 : 2 }, () => stdioAgent(server.databaseUrl))),
  ]);
}, 120_000);
afterAll(async () => {
  await Promise.all(live.map((l) => l.close()));
  await Promise.all(agents.map((agent) => agent.close()));
  for (const other of others) {
    other.process.kill('SIGTERM');
    await other.exited();
  }
  await server?.close();
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

const note = async (domain: string, title: string): Promise<string> =>
  (await server.ok(CREATE_NOTE, { input: { title, body: 'b', domain } })).createNote.id;

/** The notes written to see that a subscription is live: on a loaded machine one may be heard after the check gave up on it. */
const pokes = new Set<string>();
const notPoke = (heard: string) => !pokes.has(heard.split(' ')[0]!);

async function watching(under: string): Promise<{ live: Live; from: number }> {
  const l = subscribe(server.url, DOMAIN_CHANGED, { under });
  live.push(l);
  await whenHeld(l, async () => pokes.add(await note(`${under}/poke`, 'poke')));
  return { live: l, from: await newestLogId(server) };
}

/** One writer: a name for the figures, and how it creates a note. */
interface NoteWriter { name: string; write(domain: string, title: string): Promise<void> }

function writers(): NoteWriter[] {
  const viaServer = (other: BuiltServer, name: string): NoteWriter => ({
    name,
    write: async (domain, title) => {
      const result = await other.graphql(CREATE_NOTE, { input: { title, body: 'b', domain } });
      expect(result.errors).toBeUndefined();
    },
  });
  return [
    ...others.map((other, i) => viaServer(other, `server ${i + 2}`)),
    ...agents.map((agent, i): NoteWriter => ({ name: `stdio ${i + 1}`, write: async (domain, title) => { await agent.call('remember', { title, body: 'b', domain }); } })),
  ];
}

/** The listening connection of this process's server, as PostgreSQL sees it: its backend pids. */
async function listeners(admin: pg.Client): Promise<number[]> {
  const result = await admin.query('SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()', [listenerName(process.pid)]);
  return result.rows.map((row: { pid: number }) => row.pid);
}

describe(`writers in ${onPostgres ? 'three server processes and a stdio process' : 'the server and two stdio processes'} on one ${DATABASE} database`, () => {
  it(`reach a subscriber of one server in log order, none missing or repeated${onPostgres ? ', across its LISTEN connection killed and restored' : ''}`, async () => {
    const { live: watcher, from } = await watching('fanin');
    const all = writers();
    const mine: NoteWriter = { name: 'server 1 (the subscriber\'s)', write: async (domain, title) => { await note(domain, title); } };
    const written = new Map<string, number>();
    const round = async (who: NoteWriter[], n: number) => {
      await Promise.all(who.map(async (writer, w) => {
        await writer.write(`fanin/w${w}`, `round ${n} by ${writer.name}`);
        written.set(writer.name, (written.get(writer.name) ?? 0) + 1);
      }));
    };
    let n = 0;
    for (; n < 10; n += 1) await round([...all, mine], n);

    let writtenWhileDown = 0;
    if (onPostgres) {
      const admin = new pg.Client({ connectionString: server.databaseUrl });
      await admin.connect();
      try {
        const [before] = await listeners(admin);
        expect(before, 'the server listens on one connection').toBeDefined();
        const killed = await admin.query('SELECT pg_terminate_backend($1) AS killed', [before]);
        expect(killed.rows[0].killed).toBe(true);
        // Only the other processes write now: nothing of this server's own wakes its feed.
        for (let restored = false; !restored || writtenWhileDown === 0; n += 1) {
          await round(all, n);
          if (!restored) writtenWhileDown += all.length;
          const now = await listeners(admin);
          restored = now.length === 1 && now[0] !== before;
        }
        const [after] = await listeners(admin);
        expect(after).not.toBe(before);
      } finally {
        await admin.end();
      }
    }
    for (const stop = n + 10; n < stop; n += 1) await round([...all, mine], n);
    const sentinel = await note('fanin', 'sentinel');
    written.set(mine.name, (written.get(mine.name) ?? 0) + 1);

    const heard = (await heardUntil(watcher, sentinel, 120_000)).filter(notPoke);
    const logged = (await loggedUnder(server, 'fanin', from)).filter(notPoke);
    expect(heard).toEqual(logged);
    expect(new Set(heard).size).toBe(heard.length);
    const total = [...written.values()].reduce((a, b) => a + b, 0);
    expect(heard).toHaveLength(total);
    console.log(
      `[change log across processes, ${DATABASE}] written ${total} (${[...written].map(([name, count]) => `${name} ${count}`).join(', ')}), ` +
        `logged ${logged.length}, delivered ${heard.length}, in log order, none repeated` +
        (onPostgres ? `; LISTEN connection killed after ${10 * (all.length + 1)} and restored, ${writtenWhileDown} written before it was seen back` : ''),
    );
  }, 240_000);
});

/**
 * Another process appends one change through the real Writer, says so on
 * stdout, holds its transaction open for a second, then commits. Another
 * process, because on SQLite a second connection in this one would wait for
 * the file's lock by blocking the thread the test and the server share.
 */
const HOLDER = `
import { Database } from './dist/src/db/database.js';
import { CommitSignal } from './dist/src/services/kernel/changes/change-events.js';
import { Writer } from './dist/src/services/kernel/unit-of-work.js';
const db = await Database.open(process.env.DATABASE_URL);
const holding = { kind: db.kind, tail: () => db.tail(), transaction: (work) => db.transaction(async (manager) => {
  const value = await work(manager);
  process.stdout.write('appended\\n');
  await new Promise((resolve) => setTimeout(resolve, 1000));
  return value;
}) };
const [id, domain] = JSON.parse(process.env.HELD);
await new Writer(holding, new CommitSignal(), () => new Date())
  .run({ sessionId: null }, async (uow) => uow.emit({ entity: 'NOTE', id, action: 'NOTE_EDITED', memory: { kind: 'NOTE', domain } }));
await db.close();
`;

describe('a change that commits late', () => {
  it(`is delivered after the change that committed before it${onPostgres ? ', which did not wait for it (no lock orders the writers)' : ' (SQLite: one writer at a time, so that one waited)'}`, async () => {
    const held = await note('order/held', 'held note');
    // Held after the note exists: what it hears from here on is the two changes below.
    const { live: watcher } = await watching('order');
    const holder = spawn(process.execPath, ['--input-type=module', '-e', HOLDER], {
      cwd: root, env: { ...process.env, DATABASE_URL: server.databaseUrl, HELD: JSON.stringify([held, 'order/held']) }, stdio: ['ignore', 'pipe', 'inherit'],
    });
    let holderDone = false;
    const exited = new Promise<number | null>((resolve) => holder.once('exit', (code) => { holderDone = true; resolve(code); }));
    await new Promise<void>((resolve, reject) => {
      holder.stdout.on('data', (chunk) => { if (String(chunk).includes('appended')) resolve(); });
      holder.once('exit', (code) => reject(new Error(`the holder exited (${code}) before appending`)));
    });
    // The server's own write starts while the first is uncommitted.
    const later = await note('order/later', 'later note');
    const answeredWhileHeld = !holderDone;
    expect(await exited).toBe(0);
    const heard: string[] = [];
    while (heard.filter((h) => h === `${held} NOTE_EDITED` || h === `${later} NOTE_CREATED`).length < 2) {
      heard.push(...(await heardUntil(watcher, heard.some((h) => h.startsWith(`${later} `)) ? held : later)).filter(notPoke));
    }
    if (onPostgres) {
      // Nobody waited for the held transaction: the later write was answered first, and is in the log first, as it committed first.
      expect(answeredWhileHeld).toBe(true);
      expect(heard).toEqual([`${later} NOTE_CREATED`, `${held} NOTE_EDITED`]);
    } else {
      expect(heard).toEqual([`${held} NOTE_EDITED`, `${later} NOTE_CREATED`]);
    }
  }, 60_000);
});
