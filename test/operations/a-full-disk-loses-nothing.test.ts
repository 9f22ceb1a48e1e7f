/**
 * SQLite on a full disk: every write the server acknowledged is in the file,
 * writes past the full disk are refused with UNAVAILABLE (HTTP 503, saying
 * the disk is full), /healthz says so, and once space comes back writes are
 * accepted again with no restart.
 *
 * On PostgreSQL the same holds, with the database's tables in a tablespace
 * on that small disk (its WAL stays on the cluster's own disk): a table that
 * cannot grow is disk_full (53100), answered UNAVAILABLE too.
 *
 * The disk is a small tmpfs, which only root may mount. CI runs as root
 * (`.ci/run` installs packages), so there the test always runs; a developer
 * running the suite as another user sees it skipped with that reason.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { startBuiltServer, type BuiltServer } from '../built-server.js';

const isRoot = process.getuid?.() === 0;
const postgresBase = process.env.TEST_POSTGRES_URL?.replace(/\/+$/, '');
const mounted: string[] = [];
const running: BuiltServer[] = [];

/** What a PostgreSQL run made on the small disk, dropped before the disk goes: the cluster's catalog must not point at it. */
const madeOnPostgres: { database: string; tablespace: string }[] = [];

afterAll(async () => {
  for (const server of running) if (server.process.exitCode === null && server.process.signalCode === null) server.process.kill('SIGKILL');
  await Promise.all(running.map((server) => server.exited()));
  if (madeOnPostgres.length) {
    const { default: pg } = await import('pg');
    const admin = new pg.Client({ connectionString: `${postgresBase}/postgres` });
    await admin.connect();
    try {
      for (const { database, tablespace } of madeOnPostgres) {
        await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
        await admin.query(`DROP TABLESPACE IF EXISTS "${tablespace}"`);
      }
    } finally {
      await admin.end();
    }
  }
  for (const dir of mounted) {
    try { execFileSync('umount', ['-l', dir]); } catch { /* already gone */ }
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** A file system of `megabytes` MB of its own, so filling it fills nothing else. */
function smallDisk(megabytes: number): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskbase-full-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m`, 'tmpfs', dir]);
  mounted.push(dir);
  return dir;
}

/** Fills `dir`'s file system up to `leaveBytes` free, with one file that can be removed to give the space back. */
function fillUpTo(dir: string, leaveBytes: number): string {
  const filler = path.join(dir, 'filler');
  const { bavail, bsize } = fs.statfsSync(dir);
  const size = Math.max(bavail * bsize - leaveBytes, 0);
  const fd = fs.openSync(filler, 'w');
  const chunk = Buffer.alloc(1 << 20, 1);
  for (let written = 0; written < size; ) {
    const n = Math.min(chunk.length, size - written);
    fs.writeSync(fd, chunk, 0, n);
    written += n;
  }
  fs.closeSync(fd);
  return filler;
}

const CREATE = 'mutation($input: CreateTaskInput!) { createTask(input: $input) { task { id } } }';

interface Attempt { id: string | null; code: string | null; message: string | null; status: number }

async function createTask(server: BuiltServer, n: number): Promise<Attempt> {
  const response = await fetch(`${server.base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: CREATE, variables: { input: { title: `Write ${n}`, goal: `${'x'.repeat(6_000)} ${n}`, domain: 'ops/disk', items: ['Check'] } } }),
  });
  const body = (await response.json()) as { data?: { createTask?: { task: { id: string } } }; errors?: { message: string; extensions?: { code?: string } }[] };
  const error = body.errors?.[0];
  return { id: body.data?.createTask?.task.id ?? null, code: error?.extensions?.code ?? null, message: error?.message ?? null, status: response.status };
}

/** A database whose tables live on `dir`, and how to read back which task ids it holds (and that it is intact). */
interface DatabaseOnDisk {
  url: string;
  storedIds(): Promise<Set<string>>;
}

function sqliteOn(dir: string): DatabaseOnDisk {
  const file = path.join(dir, 'full.sqlite');
  return {
    url: `sqlite:${file}`,
    storedIds: async () => {
      // What the file holds, read by SQLite itself: every acknowledged id, and nothing torn.
      const raw = new Sqlite(file, { readonly: true });
      try {
        expect(raw.pragma('integrity_check', { simple: true })).toBe('ok');
        return new Set((raw.prepare(`SELECT "id" FROM "memories" WHERE "domain" = 'ops/disk'`).all() as { id: number }[]).map((row) => String(row.id)));
      } finally {
        raw.close();
      }
    },
  };
}

async function postgresOn(dir: string): Promise<DatabaseOnDisk> {
  const { default: pg } = await import('pg');
  const name = `taskbase_test_full_${process.pid}_${Date.now()}`;
  const space = `${name}_disk`;
  execFileSync('chown', ['postgres', dir]);
  const admin = new pg.Client({ connectionString: `${postgresBase}/postgres` });
  await admin.connect();
  try {
    await admin.query(`CREATE TABLESPACE "${space}" LOCATION '${dir}'`);
    madeOnPostgres.push({ database: name, tablespace: space });
    await admin.query(`CREATE DATABASE "${name}" TABLESPACE "${space}"`);
  } finally {
    await admin.end();
  }
  return {
    url: `${postgresBase}/${name}`,
    storedIds: async () => {
      const client = new pg.Client({ connectionString: `${postgresBase}/${name}` });
      await client.connect();
      try {
        const { rows } = await client.query(`SELECT "id" FROM "memories" WHERE "domain" = 'ops/disk'`);
        return new Set(rows.map((row: { id: number }) => String(row.id)));
      } finally {
        await client.end();
      }
    },
  };
}

const where = postgresBase ? 'PostgreSQL with its tables on a full disk' : 'SQLite on a full disk';
describe.skipIf(!isRoot)(`${where} (needs root to mount a small tmpfs)`, () => {
  it('acknowledges only what it committed, says the disk is full, and takes writes again when space returns', async () => {
    // PostgreSQL copies its template database (about 8 MB) into the tablespace first.
    const dir = smallDisk(postgresBase ? 48 : 24);
    const database = postgresBase ? await postgresOn(dir) : sqliteOn(dir);
    const server = await startBuiltServer(database.url, os.tmpdir());
    running.push(server);
    const acknowledged: string[] = [];
    for (let n = 0; n < 5; n += 1) {
      const attempt = await createTask(server, n);
      expect(attempt.code).toBeNull();
      acknowledged.push(attempt.id!);
    }

    const filler = fillUpTo(dir, 256 * 1024);
    // Writes until the disk refuses one, then 60 more while it is still full, in order, as agents retrying would send them.
    let firstRefusal: Attempt | null = null;
    for (let n = 5; n < 2_000 && !firstRefusal; n += 1) {
      const attempt = await createTask(server, n);
      if (attempt.id) acknowledged.push(attempt.id);
      else firstRefusal = attempt;
    }
    expect(firstRefusal, 'the disk never filled').not.toBeNull();
    const refused = [firstRefusal!];
    for (let n = 2_000; n < 2_060; n += 1) {
      const attempt = await createTask(server, n);
      if (attempt.id) acknowledged.push(attempt.id);
      else refused.push(attempt);
    }
    for (const attempt of refused) {
      expect(attempt.code, attempt.message ?? '').toBe('UNAVAILABLE');
      expect(attempt.status).toBe(503);
      expect(attempt.message).toMatch(/disk .*full/i);
    }
    const health = await fetch(`${server.base}/healthz`);
    expect(health.status).toBe(503);
    expect(JSON.stringify(await health.json())).toMatch(/disk .*full/i);

    // Space comes back: writes are taken again, with no restart.
    fs.rmSync(filler);
    for (let n = 400; n < 420; n += 1) {
      const attempt = await createTask(server, n);
      expect(attempt.code, attempt.message ?? '').toBeNull();
      acknowledged.push(attempt.id!);
    }
    expect((await fetch(`${server.base}/healthz`)).status).toBe(200);

    server.process.kill('SIGTERM');
    await server.exited();
    const stored = await database.storedIds();
    const lost = acknowledged.filter((id) => !stored.has(id));
    expect(lost, `${lost.length} of ${acknowledged.length} acknowledged writes are not in the file`).toEqual([]);
    console.log(`full disk: ${acknowledged.length} acknowledged, ${acknowledged.length - lost.length} in the file, ${refused.length} refused while full`);
  });
});
