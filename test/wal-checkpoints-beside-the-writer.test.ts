/**
 * The server's SQLite writer runs no checkpoint inside its commits (each one
 * held every request on the event loop for 15-17 ms at --scale large): a
 * worker thread copies the WAL into the database file beside it. What a
 * user sees: a few commits reach the database file itself within moments
 * (SQLite's own checkpoint would wait for 1,000 pages), the WAL stays small
 * however long writes go on, and a server stopped cleanly leaves every
 * write in the file and no WAL behind. SQLite's own: a PostgreSQL run
 * checks it on a SQLite file too.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { startBuiltServer, type BuiltServer } from './built-server.js';

const running: BuiltServer[] = [];
afterAll(() => {
  for (const server of running) if (server.process.exitCode === null && server.process.signalCode === null) server.process.kill('SIGKILL');
});

/** Text long enough that each note adds pages of its own to the WAL. */
const LONG = 'x'.repeat(3_000);

const CREATE_NOTE = 'mutation($input: CreateNoteInput!) { createNote(input: $input) { id } }';

describe('WAL checkpoints beside the writer', () => {
  it('copy a few commits into the database file within moments, far below the 1,000 pages at which SQLite would', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskbase-wal-'));
    const file = path.join(dir, 'few.sqlite');
    const server = await startBuiltServer(`sqlite:${file}`, dir);
    running.push(server);
    // Four notes: a few dozen pages. SQLite's own checkpoint, inside a commit, waits for 1,000.
    for (let i = 0; i < 4; i += 1) {
      const created = await server.graphql(CREATE_NOTE, { input: { title: `Few ${i}`, body: `${i} ${LONG}`, domain: 'ops/few' } });
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

  it('keep the WAL small under a long run of writes, and every write reaches the file', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskbase-wal-'));
    const file = path.join(dir, 'wal.sqlite');
    const server = await startBuiltServer(`sqlite:${file}`, dir);
    running.push(server);
    // 8 rounds of 40 commits, each a note of 6 KB (about 75 KB of pages through the WAL with its search index and
    // the change log). With no checkpoint between commits the WAL holds all of it; checkpointed as it goes, it
    // restarts from its start again and again and stops growing.
    const rounds = 8;
    const perRound = 40;
    // Migrating a new file wrote the WAL's first pages; its size only ever grows to what it once held at most.
    const walAtStart = fs.statSync(`${file}-wal`).size;
    let walAfterFirstRound = 0;
    let walMax = walAtStart;
    for (let round = 0; round < rounds; round += 1) {
      for (let i = 0; i < perRound; i += 1) {
        const added = await server.graphql(CREATE_NOTE, {
          input: { title: `Note ${round}.${i}`, body: `${round}.${i} ${LONG} ${LONG}`, domain: 'ops/wal' },
        });
        expect(added.errors).toBeUndefined();
      }
      walMax = Math.max(walMax, fs.statSync(`${file}-wal`).size);
      if (round === 0) walAfterFirstRound = walMax;
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    // Each round writes as many pages as the first; kept, they would add seven times what it added.
    const firstRound = walAfterFirstRound - walAtStart;
    expect(firstRound).toBeGreaterThan(0);
    expect(walMax - walAfterFirstRound, `the WAL: ${walAtStart} bytes at start, ${walAfterFirstRound} after the first round, ${walMax} at most`)
      .toBeLessThan(firstRound);

    expect(server.output()).not.toContain('background WAL checkpoints stopped');
    server.process.kill('SIGTERM');
    expect((await server.exited()).code).toBe(0);
    // Stopped cleanly: the last checkpoint ran and the WAL is gone, so the file alone holds every item.
    expect(fs.existsSync(`${file}-wal`)).toBe(false);
    const db = new Sqlite(file, { readonly: true });
    try {
      const { count } = db.prepare(`SELECT count(*) AS count FROM "memories" WHERE "domain" = 'ops/wal'`).get() as { count: number };
      expect(count).toBe(rounds * perRound);
      expect((db.pragma('integrity_check') as { integrity_check: string }[])[0].integrity_check).toBe('ok');
    } finally {
      db.close();
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }, 120_000);
});
