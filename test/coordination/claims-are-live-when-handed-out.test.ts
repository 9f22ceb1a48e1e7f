/**
 * A claim is stamped with the database's clock as the statement that takes
 * it runs, not as its transaction started (issue 41 finding 5): a claimNext
 * that waited for a lock longer than its lease still answers a claim that
 * holds. On PostgreSQL another connection holds a lock the claim must wait
 * for (the claims table) for longer than the lease; the answer's expiry is after the database's time when it arrived, and the
 * item reads as the caller's. Through GraphQL over HTTP, on SQLite and
 * PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, testDatabase, type TestServer } from '../harness.js';
import { CLAIM_ITEM, CLAIM_NEXT, SESSION_CLAIMS } from '../fixtures/documents.js';
import { freshDomain } from '../fixtures/knowledge.js';
import { startSession } from '../fixtures/sessions.js';
import { createTask } from '../fixtures/tasks.js';

/** The lease asked for, and a hold longer than it: a claim stamped before the wait would be over when answered. */
const LEASE_SECONDS = 2;
const HOLD_MS = 4_000;

/** A second connection to the test's database: hold() takes the lock the claim waits for, now() reads the database's clock. */
interface Blocker {
  /** How long hold() keeps its lock: 0 where it takes none. */
  holdMs: number;
  hold(): Promise<() => Promise<void>>;
  now(): Promise<string>;
  close(): Promise<void>;
}

async function blockerOn(file: string, databaseUrl: string): Promise<Blocker> {
  if (databaseUrl.startsWith('postgres')) {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    return {
      holdMs: HOLD_MS,
      async hold() {
        await client.query('BEGIN');
        // Reads of claims go on; the claim's own INSERT waits.
        await client.query('LOCK TABLE "claims" IN EXCLUSIVE MODE');
        return async () => { await client.query('COMMIT'); };
      },
      async now() {
        const { rows: [row] } = await client.query(`SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "now"`);
        return row.now as string;
      },
      close: () => client.end(),
    };
  }
  // SQLite: a write takes the file's write lock before anything else (BEGIN IMMEDIATE), so no claim waits between
  // its stamp and its write, and another connection holding the lock makes the server answer UNAVAILABLE instead:
  // nothing is held, and the stamps are checked as they come.
  const { default: Sqlite } = await import('better-sqlite3');
  const db = new Sqlite(file, { readonly: true });
  return {
    holdMs: 0,
    async hold() {
      return async () => {};
    },
    async now() {
      return (db.prepare(`SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now') AS "now"`).get() as { now: string }).now;
    },
    async close() { db.close(); },
  };
}

let server: TestServer;
let blocker: Blocker;
beforeAll(async () => {
  const { file, databaseUrl } = await testDatabase();
  server = await startTestServer({ file });
  blocker = await blockerOn(file, databaseUrl);
});
afterAll(async () => {
  await blocker?.close();
  await server?.close();
});

/** Runs `call` while the blocker holds its lock (holdMs): the answer, and the database's time as it came. */
async function whileHeld<T>(call: () => Promise<T>): Promise<{ answer: T; answeredAt: string }> {
  const release = await blocker.hold();
  const answered = call().then(async (answer) => ({ answer, answeredAt: await blocker.now() }));
  await new Promise((resolve) => setTimeout(resolve, blocker.holdMs));
  await release();
  return answered;
}

describe('a claim that waited for a lock', () => {
  it('claimNext answers a claim that still holds, stamped after the wait, and the item reads as the caller\'s', async () => {
    const domain = freshDomain('stamped');
    const { items: [item] } = await createTask(server, ['Rotate the keys'], { domain });
    const session = await startSession(server);
    const { answer, answeredAt } = await whileHeld(() => server.ok(CLAIM_NEXT, { domain, ttlSeconds: LEASE_SECONDS }, { session }));
    const claimed = answer.claimNext as { id: string; claim: { session: { id: string }; claimedAt: string; expiresAt: string } };
    expect(claimed.id).toBe(item!.id);
    expect(claimed.claim.expiresAt > answeredAt, `expires ${claimed.claim.expiresAt}, answered at ${answeredAt}`).toBe(true);
    expect(Date.parse(claimed.claim.expiresAt) - Date.parse(claimed.claim.claimedAt)).toBe(LEASE_SECONDS * 1_000);
    expect((await server.ok(SESSION_CLAIMS, { id: session })).session.claims.map((held: { id: string }) => held.id)).toEqual([item!.id]);
  });

  it('claimItem does the same', async () => {
    const domain = freshDomain('stamped');
    const { items: [item] } = await createTask(server, ['Renew the certificate'], { domain });
    const session = await startSession(server);
    const { answer, answeredAt } = await whileHeld(() => server.ok(CLAIM_ITEM, { input: { id: item!.id, ttlSeconds: LEASE_SECONDS } }, { session }));
    const claimed = answer.claimItem as { claim: { expiresAt: string } };
    expect(claimed.claim.expiresAt > answeredAt, `expires ${claimed.claim.expiresAt}, answered at ${answeredAt}`).toBe(true);
    expect((await server.ok(SESSION_CLAIMS, { id: session })).session.claims.map((held: { id: string }) => held.id)).toEqual([item!.id]);
  });
});
