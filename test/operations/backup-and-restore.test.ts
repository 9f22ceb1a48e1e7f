/**
 * Backing up while agents write, and putting a backup back, as docs/operations.md
 * tells an operator to: `taskbase backup <file>` makes a consistent copy of a
 * live database, `taskbase restore <backup>` puts it in place (dropping the old
 * file's -wal, which SQLite would otherwise replay over it), and a server
 * refuses to start on a damaged file with one line saying what to do.
 *
 * On PostgreSQL the backup is pg_dump's: it is restored with pg_restore into
 * a new database, which a server then serves.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Sqlite from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { root, startBuiltServer, type BuiltServer } from '../built-server.js';
import { testDatabase } from '../harness.js';

const run = promisify(execFile);
const postgresBase = process.env.TEST_POSTGRES_URL?.replace(/\/+$/, '');
const cli = path.join(root, 'dist/src/cli.js');
const running: BuiltServer[] = [];
afterAll(() => {
  for (const server of running) if (server.process.exitCode === null && server.process.signalCode === null) server.process.kill('SIGKILL');
});

/** Runs `taskbase <args>` on `databaseUrl`, as an operator would; answers its exit code and what it printed. */
async function taskbase(databaseUrl: string, ...args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [cli, ...args], { env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' } });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

const CREATE = 'mutation($title: String!) { createTask(input: { title: $title, goal: "Kept through a backup", domain: "ops/backup", items: ["Step"] }) { task { id } } }';
const TITLES = 'query($after: String) { memories(domain: "ops/backup", first: 200, after: $after) { pageInfo { hasNextPage endCursor } nodes { title } } }';

/** Writes tasks one after another until stopped (at most 180, one page of memories); answers the titles the server acknowledged, in order. */
function writeUntilStopped(server: BuiltServer): { count(): number; stop(): Promise<string[]> } {
  const acknowledged: string[] = [];
  let stopped = false;
  const loop = (async () => {
    for (let n = 0; !stopped; n += 1) {
      const title = `Write ${n}`;
      const answer = await server.graphql(CREATE, { title });
      if (!answer.errors) acknowledged.push(title);
    }
  })();
  return { count: () => acknowledged.length, stop: async () => { stopped = true; await loop; return acknowledged; } };
}

async function titlesOn(server: BuiltServer): Promise<string[]> {
  const titles: string[] = [];
  for (let after: string | null = null; ;) {
    const page: { pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: { title: string }[] } = (await server.graphql(TITLES, { after })).data.memories;
    titles.push(...page.nodes.map((node: { title: string }) => node.title));
    if (!page.pageInfo.hasNextPage) return titles.sort();
    after = page.pageInfo.endCursor;
  }
}

// One database's tests per run (the suite runs once on each), so neither run lists the other's as skipped.
if (!postgresBase) describe('a SQLite database backed up during writes, then restored', () => {
  it('copies a consistent snapshot while writes go on, and a restore after a crash opens clean', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskbase-backup-'));
    const file = path.join(dir, 'live.sqlite');
    const url = `sqlite:${file}`;
    const server = await startBuiltServer(url, dir);
    running.push(server);

    const writes = writeUntilStopped(server);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const backups = [1, 2, 3].map((n) => path.join(dir, `backup-${n}.sqlite`));
    for (const backup of backups) {
      const made = await taskbase(url, 'backup', backup);
      expect(made, made.output).toMatchObject({ code: 0, output: expect.stringMatching(/^backed up .* checked whole/) });
      // The next copy starts only once a write was acknowledged after this one ended, however slow the machine:
      // so each copy must hold more than the one before.
      const after = writes.count();
      for (const until = Date.now() + 30_000; writes.count() <= after && Date.now() < until;) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const acknowledged = await writes.stop();
    // Each copy is whole, and holds the writes acknowledged before it began: a prefix, in order, with nothing torn.
    const held = backups.map((backup) => {
      const copy = new Sqlite(backup, { readonly: true });
      try {
        expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
        return (copy.prepare(`SELECT "title" FROM "memories" WHERE "domain" = 'ops/backup' ORDER BY "id"`).all() as { title: string }[]).map((row) => row.title);
      } finally {
        copy.close();
      }
    });
    for (const titles of held) expect(titles).toEqual(acknowledged.slice(0, titles.length));
    expect(held[0]!.length).toBeGreaterThan(0);
    expect(held[2]!.length).toBeGreaterThan(held[0]!.length);
    expect((await taskbase(url, 'backup', backups[0]!)).output).toMatch(/exists already/);

    // More writes, then the server dies without a clean stop: its -wal stays beside the file.
    await server.graphql(CREATE, { title: 'After the backups' });
    server.process.kill('SIGKILL');
    await server.exited();
    expect(fs.existsSync(`${file}-wal`)).toBe(true);

    const restored = await taskbase(url, 'restore', backups[1]!);
    expect(restored, restored.output).toMatchObject({ code: 0 });
    expect(fs.existsSync(`${file}-wal`)).toBe(false);
    const again = await startBuiltServer(url, dir);
    running.push(again);
    expect(await titlesOn(again)).toEqual([...held[1]!].sort());
    // A restore while a server serves the file is refused.
    expect((await taskbase(url, 'restore', backups[2]!)).output).toMatch(/is serving .*stop it, then restore/);
    again.process.kill('SIGTERM');
    await again.exited();
  });

  it('refuses to start on a damaged file, in one line that says how to restore', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskbase-damaged-'));
    const file = path.join(dir, 'damaged.sqlite');
    const first = await startBuiltServer(`sqlite:${file}`, dir);
    for (let n = 0; n < 30; n += 1) await first.graphql(CREATE, { title: `Task ${n} ${'x'.repeat(500)}` });
    first.process.kill('SIGTERM');
    await first.exited();
    // A torn copy: the second half of the file is zeros, as a copy caught mid-write can be.
    const size = fs.statSync(file).size;
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, Buffer.alloc(size / 2), 0, size / 2, size / 2);
    fs.closeSync(fd);

    await expect(startBuiltServer(`sqlite:${file}`, dir, 30_000)).rejects.toThrow(/the SQLite file .* is damaged .*taskbase restore <backup>/);
  });
});

if (postgresBase) describe('a PostgreSQL database backed up with pg_dump during writes', () => {
  it('dumps while writes go on, and pg_restore into a new database serves what was dumped', async () => {
    const { databaseUrl } = await testDatabase();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskbase-pgdump-'));
    const server = await startBuiltServer(databaseUrl, dir);
    running.push(server);
    const writes = writeUntilStopped(server);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const dump = path.join(dir, 'taskbase.dump');
    const made = await taskbase(databaseUrl, 'backup', dump);
    expect(made, made.output).toMatchObject({ code: 0, output: expect.stringMatching(/pg_dump custom format/) });
    const acknowledged = await writes.stop();
    server.process.kill('SIGTERM');
    await server.exited();

    const { databaseUrl: restoredUrl } = await testDatabase();
    await run('pg_restore', ['--no-owner', '--dbname', restoredUrl, dump]);
    const restored = await startBuiltServer(restoredUrl, dir);
    running.push(restored);
    const titles = await titlesOn(restored);
    expect(titles.length).toBeGreaterThan(0);
    expect(titles).toEqual(acknowledged.slice(0, titles.length).sort());
    restored.process.kill('SIGTERM');
    await restored.exited();
  });
});
