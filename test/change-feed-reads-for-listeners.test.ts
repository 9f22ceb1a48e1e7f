/**
 * The change feed reads the log's rows only while someone wants them: with
 * no subscription open, a write's wake-up reads where the log ends (one
 * index seek) instead of its changes, and still says the log grew (what the
 * webhook dispatcher listens for). A subscription opened at any moment hears
 * every change committed after it, including one committed while the feed
 * was reading the log's end for nobody. On a real database file (and on
 * PostgreSQL in CI), with the tail connection's statements counted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntityManager } from 'typeorm';
import { Database } from '../src/db/database.js';
import { LogChangeFeed } from '../src/services/kernel/change-feed.js';
import { appendChanges } from '../src/services/kernel/change-log.js';
import { CommitSignal, type ChangeEvent } from '../src/services/kernel/changes.js';
import { testDatabase } from './harness.js';

let db: Database;
let feed: LogChangeFeed;
const commits = new CommitSignal();
/** The tail connection's statements since the last write, and what runs as each one is sent. */
let tailStatements: string[] = [];
let onTailStatement: (sql: string) => void = () => undefined;

beforeAll(async () => {
  db = await Database.open((await testDatabase()).databaseUrl);
  const tail: EntityManager = await db.tail();
  const logger = tail.connection.logger;
  const logQuery = logger.logQuery.bind(logger);
  logger.logQuery = (sql, parameters, runner) => {
    tailStatements.push(sql);
    onTailStatement(sql);
    return logQuery(sql, parameters, runner);
  };
  // No poll during the test: only a commit's wake-up reads the log.
  feed = new LogChangeFeed(() => db.tail(), commits, { pollMs: 3_600_000, onError: (error) => { throw error; } });
  await feed.ready();
});
afterAll(async () => {
  await feed?.close();
  await db?.close();
});

let serial = 0;
/** Commits one change as a mutation does, wakes the feed, and resolves once the feed has read past it. */
async function commitChange(): Promise<string> {
  serial += 1;
  const id = `change-${serial}`;
  const event: ChangeEvent = { entity: 'SETTINGS', id, action: 'SETTINGS_CHANGED', madeBy: null, at: new Date().toISOString() };
  await db.transaction((manager) => appendChanges(manager, db.kind, [event]));
  tailStatements = [];
  const grown = new Promise<void>((resolve) => { const off = feed.onGrown(() => { off(); resolve(); }); });
  commits.notify();
  await grown;
  return id;
}

const readsRows = (sql: string) => /FROM "changes" c WHERE/.test(sql);
const readsEnd = (sql: string) => /SELECT MAX\("id"\) FROM "changes"/.test(sql);

describe('the change feed reads for its listeners', () => {
  it('with no subscription open, reads only where the log ends, and still says the log grew', async () => {
    const heard: string[] = [];
    const off = feed.subscribe((event) => heard.push(event.id), () => false);
    await commitChange();
    await commitChange();
    off();
    expect(heard).toEqual([]);
    expect(tailStatements.some(readsEnd)).toBe(true);
    expect(tailStatements.filter(readsRows)).toEqual([]);
  });

  it('once a subscription wants the changes, it hears each one committed after, in order, from their rows', async () => {
    let wanted = false;
    const heard: string[] = [];
    const off = feed.subscribe((event) => heard.push(event.id), () => wanted);
    const before = await commitChange();
    wanted = true;
    const first = await commitChange();
    expect(tailStatements.some(readsRows)).toBe(true);
    const second = await commitChange();
    off();
    expect(heard).not.toContain(before);
    expect(heard).toEqual([first, second]);
  });

  it('hears a change committed while the feed was reading the log\'s end for nobody: a subscription that opened meanwhile', async () => {
    let wanted = false;
    const heard: string[] = [];
    const off = feed.subscribe((event) => heard.push(event.id), () => wanted);
    // The subscription opens as the feed asks where the log ends (it had decided that nobody wanted rows).
    onTailStatement = (sql) => { if (readsEnd(sql)) wanted = true; };
    try {
      const change = await commitChange();
      expect(heard).toEqual([change]);
      expect(tailStatements.some(readsRows)).toBe(true);
    } finally {
      onTailStatement = () => undefined;
      off();
    }
  });
});
