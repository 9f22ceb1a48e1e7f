/**
 * Two servers dispatching one webhook's queue: a server that read the queue's
 * head before another took, sent and recorded it does not send it again on
 * that stale read (the head is then unleased but no longer due, its attempt
 * counted). Only once its retry comes due is it sent again, by whichever
 * server reads it then. Driven step by step, two dispatchers on one real
 * database (SQLite here, PostgreSQL in CI), so the interleaving that CI once
 * caught by chance is the one tested every time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntityManager } from 'typeorm';
import { Database } from '../src/db/database.js';
import { appendChanges } from '../src/services/kernel/change-log.js';
import { runStatement, selectRows } from '../src/services/kernel/statements.js';
import { WebhookDispatcher } from '../src/services/webhooks/webhook-dispatcher.js';
import { testDatabase } from './harness.js';

/** The dispatcher's steps, one at a time: what its pass does in order (fill the outbox, read the due heads, attempt one). */
interface Steps {
  fill(tail: EntityManager): Promise<boolean>;
  due(tail: EntityManager): Promise<{ id: number; attempts: number }[]>;
  attempt(delivery: { id: number; attempts: number }): Promise<boolean>;
}
const steps = (dispatcher: WebhookDispatcher) => dispatcher as unknown as Steps;

let db: Database;
let now = Date.parse('2026-12-01T10:00:00.000Z');
const BACKOFF_MS = 60_000;
const sent: string[] = [];

function dispatcher(name: string): WebhookDispatcher {
  return new WebhookDispatcher(db, {
    timeoutMs: 1_000, backoffMs: BACKOFF_MS, maxAttempts: 5, clock: () => new Date(now),
    onError: (error) => { throw error; },
    // The endpoint answers 500: each attempt is counted and its retry set BACKOFF_MS later.
    send: async () => { sent.push(name); return { status: 500 }; },
  });
}

beforeAll(async () => {
  db = await Database.open((await testDatabase()).databaseUrl);
  const at = new Date(now).toISOString();
  await db.transaction((manager) => runStatement(manager,
    `INSERT INTO "webhooks" ("url", "domain", "secret", "active", "createdAt", "position") VALUES (?, NULL, ?, ?, ?, ?)`,
    ['http://127.0.0.1:9/hook', 'secret', true, at, 0]));
  await db.transaction((manager) => appendChanges(manager, db.kind, [{ entity: 'SETTINGS', id: 'reminders', action: 'SETTINGS_CHANGED', madeBy: null, at }]));
});
afterAll(async () => { await db?.close(); });

describe('a webhook delivery read stale by one server', () => {
  it('is not sent again after another server sent and recorded it, and is sent once more when its retry comes due', async () => {
    const [first, second] = [dispatcher('first'), dispatcher('second')];
    const tail = await db.tail();
    expect(await steps(first).fill(tail)).toBe(true);
    // Both servers read the same due head (no attempt yet, unleased).
    const [staleHead] = await steps(first).due(tail);
    const [head] = await steps(second).due(tail);
    expect(staleHead).toMatchObject({ id: head!.id, attempts: 0 });

    // The second takes, sends and records it: unleased again, one attempt, its retry a minute later.
    expect(await steps(second).attempt(head!)).toBe(false);
    // The first now acts on what it read before: the head is unleased, but no longer as it read it.
    expect(await steps(first).attempt(staleHead!)).toBe(false);
    expect(sent).toEqual(['second']);
    const [[attempts, leasedUntil]] = await selectRows(tail, `SELECT "attempts", "leasedUntil" FROM "webhook_deliveries" WHERE "id" = ?`, [head!.id]);
    expect([Number(attempts), leasedUntil]).toEqual([1, null]);
    expect(await steps(first).due(tail)).toEqual([]);

    // Past the retry's time, the server that reads the head then sends it, once.
    now += BACKOFF_MS + 1;
    const [retry] = await steps(first).due(tail);
    expect(retry).toMatchObject({ id: head!.id, attempts: 1 });
    expect(await steps(first).attempt(retry!)).toBe(false);
    expect(await steps(second).attempt(retry!)).toBe(false);
    expect(sent).toEqual(['second', 'first']);
  });
});
