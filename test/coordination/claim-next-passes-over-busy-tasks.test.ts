/**
 * claimNext tells a busy task from nothing ready (issue 41, "a claim loop at
 * the speed of a queue"): a claim records its task's list in the task's
 * history, so it needs the task's history lock, which a write of that task
 * holds until it commits. While one task is held that way, claimNext hands
 * out another task's ready item at once instead of queueing behind the
 * write; when the held task's items are all that is ready, it waits for the
 * write and claims one (it does not answer null); it answers null only when
 * nothing is ready. Through GraphQL over HTTP; the held write is another
 * connection holding the lock (PostgreSQL: SQLite runs one writer at a time,
 * so there is nothing to pass over).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANSWERS_WITHIN_MS, startTestServer, type TestServer } from '../harness.js';
import { CLAIM_NEXT } from '../fixtures/documents.js';
import { freshDomain } from '../fixtures/knowledge.js';
import { startSession } from '../fixtures/sessions.js';
import { createTask } from '../fixtures/tasks.js';

const onPostgres = Boolean(process.env.TEST_POSTGRES_URL);
/** The history lock's first key (src/services/task-aggregate/history-rows.ts): "tbev" in ASCII; the second is the task's id. */
const HISTORY_LOCK_CLASS = 0x74626576;

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

const claimNext = async (domain: string, session: string): Promise<string | null> =>
  (await server.ok(CLAIM_NEXT, { domain }, { session })).claimNext?.id ?? null;

describe('claimNext and a busy task', () => {
  it('answers null only when no item is ready', async () => {
    const domain = freshDomain('busy-none');
    const { items } = await createTask(server, ['One', 'Two'], { domain });
    const session = await startSession(server);
    const handed = [await claimNext(domain, session), await claimNext(domain, session)];
    expect(handed.sort()).toEqual(items.map((item) => item.id).sort());
    expect(await claimNext(domain, session)).toBeNull();
  });
});

if (onPostgres) {
  describe('claimNext and a task whose write is open (PostgreSQL)', () => {
    /** Holds the task's history lock on a connection of its own, as a write of the task does until it commits; returns the release. */
    async function holdTask(taskId: string): Promise<() => Promise<void>> {
      const { default: pg } = await import('pg');
      const client = new pg.Client({ connectionString: server.databaseUrl });
      await client.connect();
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1, $2)', [HISTORY_LOCK_CLASS, Number(taskId)]);
      return async () => {
        await client.query('COMMIT');
        await client.end();
      };
    }

    it('hands out another task\'s item at once while the first task in hand-out order is held, and waits for the held task only when nothing else is ready', async () => {
      const domain = freshDomain('busy-held');
      // The first task's items come first in hand-out order (same place in the list, older task).
      const first = await createTask(server, ['First task, one'], { domain });
      const second = await createTask(server, ['Second task, one'], { domain });
      const session = await startSession(server);
      const release = await holdTask(first.task.id);
      let released = false;
      try {
        const answer = claimNext(domain, session);
        const inTime = await Promise.race([answer, new Promise((resolve) => setTimeout(() => resolve('no answer'), ANSWERS_WITHIN_MS))]);
        expect(inTime).toBe(second.items[0].id);
        // Only the held task's item is ready now: the claim waits for its write, then takes it.
        const waiting = claimNext(domain, session);
        // Time for it to reach the lock; if it comes after the release, it finds the item free: the same answer.
        await new Promise((resolve) => setTimeout(resolve, 300));
        await release();
        released = true;
        expect(await waiting).toBe(first.items[0].id);
        expect(await claimNext(domain, session)).toBeNull();
      } finally {
        if (!released) await release();
      }
    });
  });
}
