/**
 * A SQLite file has one server process: a second server on the file is
 * refused in one line (exit 1), the claim dies with its process (kill -9
 * included), and `taskbase remind` goes through the running server by
 * itself, so it succeeds while agents write. Without a server it opens the
 * file and waits its turn for the write lock instead of failing. Other
 * processes (`taskbase mcp`, `seed`) may write the file beside the server,
 * which hears them through the change log (test/coordination/every-writer-is-heard.test.ts).
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Sqlite from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { entry, freePort, root, startBuiltServer, type BuiltServer } from '../built-server.js';

const run = promisify(execFile);
const running: BuiltServer[] = [];
afterAll(() => {
  for (const server of running) if (server.process.exitCode === null && server.process.signalCode === null) server.process.kill('SIGKILL');
});

function tempSqlite(name: string): { dir: string; file: string; url: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `taskbase-${name}-`));
  const file = path.join(dir, `${name}.sqlite`);
  return { dir, file, url: `sqlite:${file}` };
}

async function started(url: string, cwd: string): Promise<BuiltServer> {
  const server = await startBuiltServer(url, cwd);
  running.push(server);
  return server;
}

/** Runs the built server to its exit (it is expected to refuse to start): exit code and everything it printed. */
function refusedStart(url: string, cwd: string): Promise<{ code: number | null; output: string }> {
  return freePort().then((port) => new Promise((resolve) => {
    const child = spawn(process.execPath, [entry], { cwd, env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: url, LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => { output += chunk; });
    child.stderr.on('data', (chunk) => { output += chunk; });
    const guard = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.once('exit', (code) => { clearTimeout(guard); resolve({ code, output }); });
  }));
}

const remind = (databaseUrl: string, session: string) =>
  run(process.execPath, [path.join(root, 'dist/src/cli.js'), 'remind', '--session', session, '--json'], { env: { ...process.env, DATABASE_URL: databaseUrl, TASKBASE_TOKEN: '' } });

const CREATE = 'mutation($input: CreateTaskInput!) { createTask(input: $input) { task { id } items { id } } }';

describe('a second server on the same SQLite file', () => {
  it('is refused with one clear line and exit 1; the first goes on serving', async () => {
    const { dir, url } = tempSqlite('second');
    const first = await started(url, dir);
    // /healthz can answer before the start-up lines have come through the pipe to this process.
    await expect.poll(() => first.output(), { timeout: 10_000 }).toContain('a SQLite file has one server process');
    await expect.poll(() => first.output(), { timeout: 10_000 }).toContain('this server hears their changes through the change log');

    const second = await refusedStart(url, dir);
    expect(second.code).toBe(1);
    const lines = second.output.trim().split('\n');
    expect(lines).toHaveLength(1);
    // One plain line, as every start-up failure is (no JSON, no stack).
    const msg = lines[0]!;
    expect(msg).toMatch(/^taskbase could not start: /);
    expect(msg).toContain('already serves the SQLite file');
    expect(msg).toContain('a SQLite file has one server process');
    expect(msg).toContain(`pid ${first.process.pid}`);
    expect(msg).toContain(`${first.base}/graphql`);
    expect(msg).toContain('taskbase mcp and the other commands may write the file beside it');

    expect((await first.graphql('{ reminderSettings { enabled } }')).data).toEqual({ reminderSettings: { enabled: true } });
  });

  it('may start once the first is killed with SIGKILL: the claim dies with its process', async () => {
    const { dir, url } = tempSqlite('killed');
    const first = await started(url, dir);
    const created = await first.graphql(CREATE, { input: { title: 'Survives', goal: 'g', domain: 'ops/claim', items: ['Kept'] } });
    first.process.kill('SIGKILL');
    await first.exited();

    const session = (await new Promise<string>((resolve, reject) => {
      // With no server running, a record left behind by the killed one is not believed: remind opens the file.
      remind(url, 'no-such-session').then(() => reject(new Error('expected a refusal')), (error) => resolve(error.stderr));
    }));
    expect(session).toContain('no started session has id "no-such-session"');

    const next = await started(url, dir);
    const read = await next.graphql('query($id: ID!) { task(id: $id) { title } }', { id: created.data.createTask.task.id });
    expect(read.data.task.title).toBe('Survives');
  });
});

describe('taskbase remind while agents write', () => {
  it('succeeds 40 times out of 40 through the running server, found from DATABASE_URL alone', async () => {
    const { dir, url } = tempSqlite('remind');
    const server = await started(url, dir);
    const task = (await server.graphql(CREATE, { input: { title: 'Busy task', goal: 'g', domain: 'load/remind', items: ['Seed'] } })).data.createTask.task;
    const sessions: string[] = [];
    for (let i = 0; i < 40; i += 1) {
      const response = await fetch(`${server.base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'mutation { startSession { id } }' }) });
      const id = ((await response.json()) as { data: { startSession: { id: string } } }).data.startSession.id;
      await fetch(`${server.base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-session-id': id }, body: JSON.stringify({ query: '{ mustRead(domain: "load/remind") { id } }' }) });
      sessions.push(id);
    }

    // Two agents keep writing to the file (through the server) until every remind has run.
    let writing = true;
    let writes = 0;
    const writers = Array.from({ length: 2 }, async (_, agent) => {
      while (writing) {
        const result = await server.graphql(CREATE, { input: { title: `Agent ${agent} task ${writes}`, goal: 'g', domain: 'load/noise', items: ['One', 'Two'] } });
        expect(result.errors).toBeUndefined();
        writes += 1;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    });

    const outcomes: { ok: boolean; reminder: { tasks: { id: string }[] } | null; error?: string }[] = [];
    const queue = [...sessions];
    const reminders = Array.from({ length: 4 }, async () => {
      for (let session = queue.shift(); session; session = queue.shift()) {
        try {
          const { stdout } = await remind(url, session);
          outcomes.push({ ok: true, reminder: JSON.parse(stdout) });
        } catch (error) {
          outcomes.push({ ok: false, reminder: null, error: (error as { stderr?: string }).stderr });
        }
      }
    });
    await Promise.all(reminders);
    writing = false;
    await Promise.all(writers);

    expect(outcomes.filter((o) => !o.ok)).toEqual([]);
    expect(outcomes).toHaveLength(40);
    // Every session named the domain, so each got its reminder, listing the busy task.
    for (const outcome of outcomes) expect(outcome.reminder?.tasks.map((t) => t.id)).toEqual([task.id]);
    expect(writes).toBeGreaterThan(0);
  }, 240_000);

  it('without a server, opens the file and waits for the write lock another process holds', async () => {
    const { dir, file, url } = tempSqlite('direct');
    const server = await started(url, dir);
    const session = ((await server.graphql('mutation { startSession { id } }')).data.startSession.id) as string;
    await server.graphql(CREATE, { input: { title: 'Direct', goal: 'g', domain: 'load/direct', items: ['Open'] } });
    await fetch(`${server.base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-session-id': session }, body: JSON.stringify({ query: '{ mustRead(domain: "load/direct") { id } }' }) });
    server.process.kill('SIGTERM');
    await server.exited();

    // Another process is in the middle of a write transaction when remind starts.
    const other = new Sqlite(file);
    other.exec('BEGIN IMMEDIATE');
    other.prepare(`INSERT OR REPLACE INTO "settings" ("key", "value") VALUES ('written-by-another-process', 'true')`).run();
    const pending = remind(url, session);
    // Held while remind starts and reads; a deferred transaction would then fail at once with SQLITE_BUSY_SNAPSHOT.
    setTimeout(() => { other.exec('COMMIT'); other.close(); }, 2_500);
    const { stdout } = await pending;
    expect(JSON.parse(stdout).domains).toEqual(['load/direct']);
  }, 120_000);
});
