/**
 * The server's SQLite writer runs no checkpoint inside its commits (each one
 * held every request on the event loop for 15-17 ms at --scale large): a
 * worker thread copies the WAL into the database file beside it. What a
 * user sees: a few commits reach the database file itself within moments
 * (SQLite's own checkpoint would wait for 1,000 pages), the WAL starts over
 * from its beginning again and again however long writes go on, and a
 * server stopped cleanly leaves every write in the file and no WAL behind.
 * Under writes that never pause, no checkpoint beside the writer ever
 * catches up between two commits, which is when the WAL starts over: writes
 * are held for a moment once it passes TASKBASE_SQLITE_WAL_LIMIT_MB, so it
 * stays near that size however much goes through it.
 * SQLite's own: a PostgreSQL run checks it on a SQLite file too.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { startBuiltServer, type BuiltServer } from '../built-server.js';

const running: BuiltServer[] = [];
afterAll(() => {
  for (const server of running) if (server.process.exitCode === null && server.process.signalCode === null) server.process.kill('SIGKILL');
});

/** Text long enough that each note adds pages of its own to the WAL. */
const LONG = 'x'.repeat(3_000);

const CREATE_NOTE_ID = 'mutation($input: CreateNoteInput!) { createNote(input: $input) { id } }';

/** How many times the WAL beside `file` has started over from its beginning: the checkpoint sequence in its header (bytes 12-15). */
const walStartsOver = (file: string) => fs.readFileSync(`${file}-wal`).readUInt32BE(12);

/** The file alone, opened read-only, holds `count` memories in `domain` and passes SQLite's integrity check. */
function expectInFile(file: string, domain: string, count: number): void {
  const db = new Sqlite(file, { readonly: true });
  try {
    const row = db.prepare(`SELECT count(*) AS count FROM "memories" WHERE "domain" = ?`).get(domain) as { count: number };
    expect(row.count).toBe(count);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  } finally {
    db.close();
  }
}

describe('WAL checkpoints beside the writer', () => {
  it('copy a few commits into the database file within moments, far below the 1,000 pages at which SQLite would', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskbase-wal-'));
    const file = path.join(dir, 'few.sqlite');
    const server = await startBuiltServer(`sqlite:${file}`, dir);
    running.push(server);
    // Four notes: a few dozen pages. SQLite's own checkpoint, inside a commit, waits for 1,000.
    for (let i = 0; i < 4; i += 1) {
      const created = await server.graphql(CREATE_NOTE_ID, { input: { title: `Few ${i}`, body: `${i} ${LONG}`, domain: 'ops/few' } });
      expect(created.errors).toBeUndefined();
    }
    // The database file alone, without its WAL, holds them once a checkpoint has run (every 100 ms).
    const copy = path.join(dir, 'copy.sqlite');
    let inFile = 0;
    for (let tries = 0; tries < 50 && inFile < 4; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      fs.copyFileSync(file, copy);
      const db = new Sqlite(copy);
      try {
        inFile = (db.prepare(`SELECT count(*) AS count FROM "memories" WHERE "domain" = 'ops/few'`).get() as { count: number }).count;
      } catch {
        // Not even the tables yet: the migrations' pages are still only in the WAL.
        inFile = 0;
      } finally {
        db.close();
      }
      for (const extra of ['', '-wal', '-shm']) fs.rmSync(`${copy}${extra}`, { force: true });
    }
    expect(inFile, 'notes found in the database file without its WAL').toBe(4);
    expect(server.output()).not.toContain('background WAL checkpoints stopped');
    server.process.kill('SIGTERM');
    expect((await server.exited()).code).toBe(0);
    fs.rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('start the WAL over again and again under a long run of writes, and every write reaches the file', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskbase-wal-'));
    const file = path.join(dir, 'wal.sqlite');
    const server = await startBuiltServer(`sqlite:${file}`, dir);
    running.push(server);
    // 8 rounds of 40 commits, each a note of 6 KB (about 75 KB of pages through the WAL with its search index and
    // the change log), 500 ms apart: five checkpoints' time, so a loaded machine still runs one. With no checkpoint
    // between commits the WAL holds all of it and never starts over; checkpointed as it goes, the first commit
    // after each pause finds it copied into the file and writes from its start again. Each start over moves the
    // checkpoint sequence in the WAL's header (bytes 12-15), so that count, unlike the WAL's size (which only shows
    // the most it ever held, whenever that was), says the space is used again and again.
    const rounds = 8;
    const perRound = 40;
    const atStart = walStartsOver(file);
    let walMax = 0;
    for (let round = 0; round < rounds; round += 1) {
      for (let i = 0; i < perRound; i += 1) {
        const added = await server.graphql(CREATE_NOTE_ID, {
          input: { title: `Note ${round}.${i}`, body: `${round}.${i} ${LONG} ${LONG}`, domain: 'ops/wal' },
        });
        expect(added.errors).toBeUndefined();
      }
      walMax = Math.max(walMax, fs.statSync(`${file}-wal`).size);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    // At least once after each of the 7 pauses between rounds (SQLite's own checkpoint, every 1,000 pages, would
    // start it over about 6 times in these 24 MB; none at all, never).
    const restarts = walStartsOver(file) - atStart;
    expect(restarts, `WAL started over ${restarts} times; it held ${walMax} bytes at most`).toBeGreaterThanOrEqual(rounds - 1);

    expect(server.output()).not.toContain('background WAL checkpoints stopped');
    server.process.kill('SIGTERM');
    expect((await server.exited()).code).toBe(0);
    // Stopped cleanly: the last checkpoint ran and the WAL is gone, so the file alone holds every item.
    expect(fs.existsSync(`${file}-wal`)).toBe(false);
    expectInFile(file, 'ops/wal', rounds * perRound);
    fs.rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  it('keep the WAL near its limit under writes that never pause, far below what goes through it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskbase-wal-'));
    const file = path.join(dir, 'busy.sqlite');
    const limitMb = 2;
    const server = await startBuiltServer(`sqlite:${file}`, dir, 60_000, { TASKBASE_SQLITE_WAL_LIMIT_MB: String(limitMb) });
    running.push(server);
    // 16 writers, each sending its next note as soon as the last is answered: 2,400 notes of 19,000 characters,
    // each at least its body's 19 KB through the WAL (46 MB in all; about ten times that with the search index).
    const notes = 2_400;
    const body = 'y'.repeat(19_000);
    const atStart = walStartsOver(file);
    let sent = 0;
    let walMax = 0;
    const watch = setInterval(() => {
      if (fs.existsSync(`${file}-wal`)) walMax = Math.max(walMax, fs.statSync(`${file}-wal`).size);
    }, 20);
    try {
      await Promise.all(Array.from({ length: 16 }, async () => {
        while (sent < notes) {
          const n = (sent += 1);
          const added = await server.graphql(CREATE_NOTE_ID, { input: { title: `Busy ${n}`, body: `${n} ${body}`, domain: 'ops/busy' } });
          expect(added.errors).toBeUndefined();
        }
      }));
    } finally {
      clearInterval(watch);
    }
    const throughWal = notes * body.length;
    // The WAL passes its limit by what is written before a checkpoint looks and the RESTART is done (about 15 MB
    // here at full speed; a machine slow to sync or short of CPU, more), then starts over. Without that it holds
    // all that went through it: over 46 MB of bodies, about ten times that with the search index (329 MB seen).
    const restarts = walStartsOver(file) - atStart;
    expect(walMax, `the WAL held ${walMax} bytes at most, started over ${restarts} times; over ${throughWal} went through it`)
      .toBeLessThan(64 * 1024 * 1024);
    expect(restarts).toBeGreaterThanOrEqual(3);
    expect(server.output()).not.toContain('background WAL checkpoints stopped');
    server.process.kill('SIGTERM');
    expect((await server.exited()).code).toBe(0);
    expectInFile(file, 'ops/busy', notes);
    fs.rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  it("say so when another process's open read keeps the WAL past its limit, and start it over once that read ends", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskbase-wal-'));
    const file = path.join(dir, 'held.sqlite');
    const server = await startBuiltServer(`sqlite:${file}`, dir, 60_000, { TASKBASE_SQLITE_WAL_LIMIT_MB: '1' });
    running.push(server);
    const body = 'z'.repeat(19_000);
    const write = async (count: number, from: number) => {
      for (let i = 0; i < count; i += 1) {
        const added = await server.graphql(CREATE_NOTE_ID, { input: { title: `Held ${from + i}`, body: `${from + i} ${body}`, domain: 'ops/held' } });
        expect(added.errors).toBeUndefined();
      }
    };
    await write(5, 0);
    // Another process (a backup, a shell) reads in a transaction: no checkpoint may copy past what it reads.
    const other = new Sqlite(file, { readonly: true });
    other.exec('BEGIN');
    other.prepare(`SELECT count(*) AS count FROM "memories"`).get();
    await write(60, 5);
    await expect.poll(() => server.output(), { timeout: 10_000 }).toContain('kept it from starting over');
    const heldAt = fs.statSync(`${file}-wal`).size;
    expect(heldAt, 'the WAL grew past its limit while the read was open').toBeGreaterThan(1024 * 1024);
    other.exec('COMMIT');
    other.close();
    // Read over: the next writes find it copied, and it starts over from its beginning.
    const before = walStartsOver(file);
    for (let round = 0; round < 20 && walStartsOver(file) === before; round += 1) {
      await write(5, 100 + round * 5);
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    expect(walStartsOver(file), 'the WAL started over once the read ended').toBeGreaterThan(before);
    server.process.kill('SIGTERM');
    expect((await server.exited()).code).toBe(0);
    fs.rmSync(dir, { recursive: true, force: true });
  }, 120_000);
});
