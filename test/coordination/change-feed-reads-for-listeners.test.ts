/**
 * The change feed reads the log's rows only while someone wants them: with
 * no subscription open, a write's wake-up reads where the log ends (one
 * index seek) instead of its changes, and still says the log grew (what the
 * webhook dispatcher listens for). A subscription opened at any moment hears
 * every change committed after it, including one committed while the feed
 * was reading the log's end for nobody. A commit of this process that says
 * the newest id it appended needs no statement at all, and neither does its
 * own PostgreSQL notification; a wake-up from elsewhere reads the log's end
 * again. On PostgreSQL, a feed whose move of the change queue waited for
 * another server's move still hands its subscription the changes that move
 * gave, in log order. On a real database file (and on PostgreSQL in CI),
 * with the tail connection's statements counted.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/db/database.js';
import { IDLE_READ_MS, LogChangeFeed, type Wakeups } from '../../src/services/kernel/changes/change-feed.js';
import { appendChanges, sequenceChanges } from '../../src/services/kernel/changes/change-log.js';
import { CommitSignal, type ChangeEvent } from '../../src/services/kernel/changes/change-events.js';
import { hearTailStatements } from '../fixtures/change-log.js';
import { testDatabase } from '../harness.js';

let db: Database;
let databaseUrl: string;
let feed: LogChangeFeed;
const commits = new CommitSignal();
/** What the feed's notifications call, as PostgreSQL's LISTEN connection would (pg-change-feed.ts). */
let notification: (tag?: string) => void = () => undefined;
const wakeups: Wakeups = { start: async (wake) => { notification = wake; }, close: async () => undefined };
/** The tail connection's statements since the last write, and what runs as each one is sent. */
let tailStatements: string[] = [];
let onTailStatement: (sql: string) => void = () => undefined;

beforeAll(async () => {
  databaseUrl = (await testDatabase()).databaseUrl;
  db = await Database.open(databaseUrl);
  await hearTailStatements(db, (sql) => {
    tailStatements.push(sql);
    onTailStatement(sql);
  });
  // No poll during the test: only a commit's wake-up reads the log.
  feed = new LogChangeFeed(() => db.tail(), commits, { pollMs: 3_600_000, wakeups, onError: (error) => { throw error; }, idsKnownAtCommit: db.kind === 'sqlite' });
  await feed.ready();
});
afterAll(async () => {
  await feed?.close();
  await db?.close();
});

let serial = 0;
/** The feed's next "the log grew". */
const nextGrown = () => new Promise<void>((resolve) => { const off = feed.onGrown(() => { off(); resolve(); }); });

/**
 * Commits one change, wakes the feed, and resolves once the feed has read
 * past it: by default as a commit that does not say where the log ends; with
 * `ownId`, as this process's Writer does (the newest id appended).
 */
async function commitChange(how: { ownId?: boolean } = {}): Promise<string> {
  serial += 1;
  const id = `change-${serial}`;
  const event: ChangeEvent = { entity: 'SETTINGS', id, action: 'SETTINGS_CHANGED', madeBy: null, at: new Date().toISOString() };
  const newestId = await db.transaction((manager) => appendChanges(manager, db.kind, [event], commits.tag));
  tailStatements = [];
  const grown = nextGrown();
  commits.notify(how.ownId ? newestId : null);
  await grown;
  return id;
}

/** Lets the feed's pass run (nothing to wait for when it sends no statement). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

const readsRows = (sql: string) => /FROM "changes" (c )?WHERE (c\.)?"id" >/.test(sql);
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

describe('the change feed knows where its own commits ended the log', () => {
  it('sends no statement for a commit of its own that says its newest id on SQLite (one writer: ids commit in order), one read of the end on PostgreSQL (its log ids are given after its commit, as the change queue is moved into the log), and still says the log grew', async () => {
    const heard: string[] = [];
    const off = feed.subscribe((event) => heard.push(event.id), () => false);
    await commitChange({ ownId: true });
    await commitChange({ ownId: true });
    off();
    expect(heard).toEqual([]);
    if (db.kind === 'sqlite') expect(tailStatements).toEqual([]);
    else expect(tailStatements.filter(readsEnd)).toHaveLength(1);
  });

  it(`ignores its own commits' notification, and reads the log's end on other processes' once within ${IDLE_READ_MS} ms, however many came`, async () => {
    await commitChange({ ownId: true });
    tailStatements = [];
    notification(commits.tag);
    await settle();
    expect(tailStatements).toEqual([]);
    const grown = nextGrown();
    for (let i = 0; i < 5; i += 1) notification('another-process');
    await settle();
    // Nobody wants rows: the read is held, one for all five.
    expect(tailStatements.filter(readsEnd)).toHaveLength(0);
    await db.transaction((manager) => appendChanges(manager, db.kind, [{ entity: 'SETTINGS', id: 'held', action: 'SETTINGS_CHANGED', madeBy: null, at: new Date().toISOString() }], 'another-process'));
    await grown;
    expect(tailStatements.filter(readsEnd)).toHaveLength(1);
  });

  it('reads at once on another process\'s notification while a subscription wants rows', async () => {
    await commitChange({ ownId: true });
    const heard: string[] = [];
    const off = feed.subscribe((event) => heard.push(event.id));
    try {
      await db.transaction((manager) => appendChanges(manager, db.kind, [{ entity: 'SETTINGS', id: 'at-once', action: 'SETTINGS_CHANGED', madeBy: null, at: new Date().toISOString() }], 'another-process'));
      notification('another-process');
      await settle();
      expect(heard).toEqual(['at-once']);
    } finally {
      off();
    }
  });

  it('finds a change another process committed after its own, and hands it to a subscription that wants rows', async () => {
    await commitChange({ ownId: true });
    // Another process's change: in the log, but this process's signal never says so.
    await db.transaction((manager) => appendChanges(manager, db.kind, [{ entity: 'SETTINGS', id: 'elsewhere', action: 'SETTINGS_CHANGED', madeBy: null, at: new Date().toISOString() }], 'another-process'));
    tailStatements = [];
    const grown = nextGrown();
    notification('another-process');
    await grown;
    expect(tailStatements.filter(readsEnd)).toHaveLength(1);
    const heard: string[] = [];
    const off = feed.subscribe((event) => heard.push(event.id));
    try {
      const mine = await commitChange({ ownId: true });
      expect(heard).toEqual([mine]);
      expect(tailStatements.some(readsRows)).toBe(true);
    } finally {
      off();
    }
  });
});

const onPostgres = Boolean(process.env.TEST_POSTGRES_URL);
if (onPostgres) {
  describe("PostgreSQL: a feed whose move of the change queue waited for another server's", () => {
    /** The lock movers of the queue take turns on: "tbchange" in ASCII (change-log.ts). */
    const QUEUE_LOCK = `x'${Buffer.from('tbchange').toString('hex')}'::bigint`;
    /**
     * Statements waiting for the movers' lock right now, in this test's database: pg_locks lists every database's
     * locks, and other test files on the same cluster wait for advisory locks of their own (a bigint key is listed as
     * its high and low halves).
     */
    const waitingForTheQueue = async (admin: pg.Client) =>
      Number((await admin.query(`SELECT COUNT(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND objsubid = 1
        AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND classid::bigint = (${QUEUE_LOCK} >> 32) AND objid::bigint = (${QUEUE_LOCK} & 4294967295)`)).rows[0].n);

    it('still hands its subscription the changes that other move gave, before the one it moved itself', async () => {
      const admin = new pg.Client({ connectionString: databaseUrl });
      await admin.connect();
      // Caught up first: the subscription hears only what follows.
      await commitChange();
      const heard: string[] = [];
      const off = feed.subscribe((event) => heard.push(event.id));
      try {
        // Another server is moving the queue: it holds the movers' lock.
        await admin.query('BEGIN');
        await admin.query(`SELECT pg_advisory_xact_lock(${QUEUE_LOCK})`);
        // A change commits and waits in the queue; a mover (another server's reader) comes for it and waits its turn.
        const first: ChangeEvent = { entity: 'SETTINGS', id: 'moved-elsewhere', action: 'SETTINGS_CHANGED', madeBy: null, at: new Date().toISOString() };
        await db.transaction((manager) => appendChanges(manager, db.kind, [first], 'another-process'));
        const elsewhere = sequenceChanges(db.reader);
        await expect.poll(() => waitingForTheQueue(admin), { timeout: 10_000 }).toBe(1);
        // The next change commits and wakes this feed, whose move waits behind that mover's.
        const second: ChangeEvent = { ...first, id: 'moved-here', at: new Date().toISOString() };
        await db.transaction((manager) => appendChanges(manager, db.kind, [second], 'another-process'));
        notification('another-process');
        await expect.poll(() => waitingForTheQueue(admin), { timeout: 10_000 }).toBe(2);
        // The lock goes to the first mover, which moves the first change; then to this feed, which moves the second.
        await admin.query('COMMIT');
        await elsewhere;
        await expect.poll(() => heard, { timeout: 10_000 }).toEqual(['moved-elsewhere', 'moved-here']);
      } finally {
        off();
        await admin.query('ROLLBACK').catch(() => undefined);
        await admin.end();
      }
    });
  });
}
