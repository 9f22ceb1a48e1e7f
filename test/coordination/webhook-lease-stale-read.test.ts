/**
 * Two servers dispatching one webhook: a server that read the webhook's
 * state before another claimed, sent and recorded its changes does not send
 * them again on that stale read (its claim and its lease are row updates
 * that no longer match). Only once the retry comes due is the delivery sent
 * again, by whichever server reads it then, and with the same id. Driven
 * step by step, two dispatchers on one real database (SQLite here,
 * PostgreSQL in CI), so the interleaving is the one tested every time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntityManager } from 'typeorm';
import { Database } from '../../src/db/database.js';
import { appendChanges, sequenceChanges } from '../../src/services/kernel/changes/change-log.js';
import { runStatement, selectRows } from '../../src/services/kernel/statements.js';
import { WebhookDispatcher } from '../../src/services/webhooks/webhook-dispatcher.js';
import { testDatabase } from '../harness.js';

/** A leased delivery as the dispatcher hands it to its sender. */
interface Leased { delivery: { id: number; attempts: number } }
/** What a pass plans from its read: retries' leases one by one (`steps`), and the cursor moves that open POSTs (`moves`). */
interface Plan { steps: unknown[]; moves: unknown[] }
/** The dispatcher's steps, one at a time: read the active webhooks, plan from that read, carry a plan out, and a whole pass (record answers, take leases). */
interface Steps {
  activeHooks(tail: EntityManager): Promise<unknown[]>;
  plan(tail: EntityManager, hooks: unknown[], outcomes: unknown[]): Promise<Plan>;
  carryOut(outcomes: unknown[], plan: Plan): Promise<Leased[]>;
  step(outcomes: unknown[]): Promise<Leased[]>;
}
const steps = (dispatcher: WebhookDispatcher) => dispatcher as unknown as Steps;

let db: Database;
let now = Date.parse('2026-12-01T10:00:00.000Z');
const BACKOFF_MS = 60_000;
const sent: string[] = [];

function dispatcher(): WebhookDispatcher {
  return new WebhookDispatcher(db, {
    timeoutMs: 1_000, backoffMs: BACKOFF_MS, maxAttempts: 5, clock: () => new Date(now),
    onError: (error) => { throw error; },
    send: async () => ({ status: 500 }),
  });
}

/** One server's stale plan, carried out now in its pass's transaction: what it leased. */
const carryOut = (server: WebhookDispatcher, planned: Plan): Promise<Leased[]> => steps(server).carryOut([], planned);

/** A server sends what it leased (the endpoint answers 500) and records it in its next pass. */
async function sendAndRecord(server: WebhookDispatcher, name: string, leased: Leased[]): Promise<void> {
  for (const _ of leased) sent.push(name);
  await steps(server).step(leased.map((each) => ({ ...each, result: { status: 500 }, at: new Date(now).toISOString() })));
}

beforeAll(async () => {
  db = await Database.open((await testDatabase()).databaseUrl);
  const at = new Date(now).toISOString();
  await db.transaction((manager) => runStatement(manager,
    `INSERT INTO "webhooks" ("url", "domain", "secret", "active", "createdAt", "position") VALUES (?, NULL, ?, ?, ?, ?)`,
    ['http://127.0.0.1:9/hook', 'secret', true, at, 0]));
  await db.transaction((manager) => appendChanges(manager, db.kind, [{ entity: 'SETTINGS', id: 'reminders', action: 'SETTINGS_CHANGED', madeBy: null, at }]));
  // Read by a server's feed, as before it wakes a dispatcher (on PostgreSQL, moved from the queue into the log).
  await sequenceChanges(await db.tail());
});
afterAll(async () => { await db?.close(); });

describe('a webhook read stale by one server', () => {
  it('is not claimed or sent again after another server sent and recorded it, and is sent once more, same id, when its retry comes due', async () => {
    const [first, second] = [dispatcher(), dispatcher()];
    const tail = await db.tail();
    // The first reads the webhook with its change undelivered and plans to claim it.
    const stale = await steps(first).plan(tail, await steps(first).activeHooks(tail), []);
    expect(stale.moves).toHaveLength(1);

    // The second claims, sends and records it: one attempt, its retry a minute later.
    const taken = await steps(second).step([]);
    expect(taken).toHaveLength(1);
    await sendAndRecord(second, 'second', taken);
    // The first now acts on what it read before: the claim no longer matches.
    expect(await carryOut(first, stale)).toEqual([]);
    expect(sent).toEqual(['second']);
    const rows = await selectRows(tail, `SELECT "id", "attempts", "leasedUntil" FROM "webhook_deliveries"`, []);
    expect(rows.map(([id, attempts, leasedUntil]) => [Number(id), Number(attempts), leasedUntil])).toEqual([[taken[0].delivery.id, 1, null]]);
    expect(await steps(first).step([])).toEqual([]);

    // Past the retry's time, both read it due; the first leases and sends it, the second's stale lease is refused.
    now += BACKOFF_MS + 1;
    const dueForSecond = await steps(second).plan(tail, await steps(second).activeHooks(tail), []);
    const retry = await steps(first).step([]);
    expect(retry.map((each) => each.delivery)).toMatchObject([{ id: taken[0].delivery.id, attempts: 1 }]);
    expect(dueForSecond.steps).toHaveLength(1);
    expect(await carryOut(second, dueForSecond)).toEqual([]);
    await sendAndRecord(first, 'first', retry);
    expect(sent).toEqual(['second', 'first']);
    const [[count]] = await selectRows(tail, `SELECT COUNT(*) FROM "webhook_deliveries"`, []);
    expect(Number(count)).toBe(1);
  });
});
