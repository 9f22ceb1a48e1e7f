/**
 * With no active webhook, the log growing (every write) costs the webhook
 * dispatcher nothing: once a pass found none, it asks again only at its next
 * tick, or at once when this process makes a webhook. A webhook another
 * process made is found at the tick and still gets the changes committed
 * after it was made. On a real database (SQLite here, PostgreSQL in CI),
 * with the tail connection's statements counted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/db/database.js';
import type { ChangeFeed } from '../../src/services/kernel/changes/change-feed.js';
import { appendChanges, newestChangeId, sequenceChanges } from '../../src/services/kernel/changes/change-log.js';
import { runStatement } from '../../src/services/kernel/statements.js';
import { WebhookDispatcher } from '../../src/services/webhooks/webhook-dispatcher.js';
import { hearTailStatements } from '../fixtures/change-log.js';
import { testDatabase } from '../harness.js';

let db: Database;
let dispatcher: WebhookDispatcher;
let tailStatements: string[] = [];
const sent: string[] = [];
/** What the feed calls when the log grows. */
let grown: () => void = () => undefined;
const feed = { onGrown: (listener: () => void) => { grown = listener; return () => undefined; } } as unknown as ChangeFeed;
/** The dispatcher's tick: BACKOFF_MS, capped at a second; the longest, so a busy machine's slow writes still fit between two ticks. */
const BACKOFF_MS = 1_000;

const readsHooks = (sql: string) => /FROM "webhooks" WHERE "active"/.test(sql);
const settle = (ms = 60) => new Promise((resolve) => setTimeout(resolve, ms));
/** A committed change, read by the feed as a server's feed reads it before it says the log grew (on PostgreSQL, moved from the queue into the log). */
const change = async () => {
  await db.transaction((manager) => appendChanges(manager, db.kind, [{ entity: 'SETTINGS', id: 'reminders', action: 'SETTINGS_CHANGED', madeBy: null, at: new Date().toISOString() }]));
  await sequenceChanges(await db.tail());
};

/** Waits for a tick's pass to read the webhooks, so the next tick is most of BACKOFF_MS away (none falls inside a test's window). */
async function justAfterTick(): Promise<void> {
  await new Promise<void>((resolve) => {
    const poll = setInterval(() => { if (tailStatements.some(readsHooks)) { clearInterval(poll); resolve(); } }, 5);
    tailStatements = [];
  });
  tailStatements = [];
}

beforeAll(async () => {
  db = await Database.open((await testDatabase()).databaseUrl);
  await hearTailStatements(db, (sql) => { tailStatements.push(sql); });
  dispatcher = new WebhookDispatcher(db, {
    timeoutMs: 1_000, backoffMs: BACKOFF_MS, maxAttempts: 3, clock: () => new Date(),
    onError: (error) => { throw error; },
    send: async ({ body }) => { sent.push(body); return { status: 200 }; },
  });
  dispatcher.start(feed);
  await settle();
});
afterAll(async () => {
  await dispatcher?.close();
  await db?.close();
});

describe('the webhook dispatcher with no active webhook', () => {
  it('does not ask for webhooks when the log grows, once a pass found none', async () => {
    await justAfterTick();
    for (let i = 0; i < 5; i += 1) {
      await change();
      grown();
    }
    await settle();
    expect(tailStatements.filter(readsHooks)).toEqual([]);
  });

  it('asks at once when this process made a webhook', async () => {
    await justAfterTick();
    dispatcher.hooksChanged();
    await settle();
    expect(tailStatements.filter(readsHooks)).toHaveLength(1);
  });

  it("finds another process's webhook at its next tick and sends it the changes committed after it was made", async () => {
    const position = await newestChangeId(await db.tail());
    await db.transaction((manager) => runStatement(manager,
      `INSERT INTO "webhooks" ("url", "domain", "secret", "active", "createdAt", "position") VALUES (?, NULL, ?, ?, ?, ?)`,
      ['http://127.0.0.1:9/hook', 'secret', true, new Date().toISOString(), position]));
    await change();
    grown();
    await settle(BACKOFF_MS + 300);
    expect(sent).toHaveLength(1);
    expect(JSON.parse(sent[0]!).changes).toMatchObject([{ action: 'SETTINGS_CHANGED' }]);
  });
});
