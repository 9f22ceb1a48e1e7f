/**
 * A task write and a claim of one of its items never wait for each other in
 * a cycle (PostgreSQL). A claim that finds its task busy locks its ready row
 * and then waits for the task's history lock; a task write refreshes its
 * ready rows and takes that lock. If the write took the lock first and then
 * wanted the claimed ready row (an item the write makes no longer ready),
 * each would wait for the other until PostgreSQL broke the deadlock (a
 * second later, one of them rolled back and retried). Through GraphQL over
 * HTTP; the write ahead of both is another connection holding the task's
 * history lock, so both queue behind it. SQLite runs one writer at a time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { ADD_TASK_NOTE, CLAIM_NEXT, UPDATE_ITEM } from '../fixtures/documents.js';
import { brief, freshDomain } from '../fixtures/knowledge.js';
import { startSession } from '../fixtures/sessions.js';
import { createTask } from '../fixtures/tasks.js';

const onPostgres = Boolean(process.env.TEST_POSTGRES_URL);
/** The history lock's first key (src/services/task-aggregate/history-rows.ts): "tbev" in ASCII; the second is the task's id. */
const HISTORY_LOCK_CLASS = 0x74626576;
/** pg_locks lists every database's locks, and other test files' databases have tasks of the same ids. */
const THIS_DATABASE = `database = (SELECT oid FROM pg_database WHERE datname = current_database())`;

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

if (onPostgres) {
  describe('a task write and a claim of its item (PostgreSQL)', () => {
    it('never deadlock: a write that makes the claimed item unready waits for the claim, not the other way round too', async () => {
      const { default: pg } = await import('pg');
      const domain = freshDomain('no-deadlock');
      const { task, items: [schema, handler] } = await createTask(server, ['Add the refunds table', 'Write the refund handler'], { domain });
      await server.ok(ADD_TASK_NOTE, { input: { taskId: task.id, title: 'Order', items: [handler.id], brief: brief({ dependsOn: [{ item: schema.id }] }) } });
      await server.ok(UPDATE_ITEM, { input: { id: schema.id, state: 'DONE' } });
      const session = await startSession(server);

      const holder = new pg.Client({ connectionString: server.databaseUrl });
      const watcher = new pg.Client({ connectionString: server.databaseUrl });
      await holder.connect();
      await watcher.connect();
      const waitingForHistory = async (): Promise<number> => Number((await watcher.query(
        `SELECT COUNT(*) AS n FROM pg_locks WHERE ${THIS_DATABASE} AND locktype = 'advisory' AND NOT granted AND classid::bigint = $1 AND objid::bigint = $2`,
        [HISTORY_LOCK_CLASS, Number(task.id)],
      )).rows[0].n);
      // Two backends each blocked by the other, one of them queued for this task's history lock.
      const cycle = async (): Promise<boolean> => (await watcher.query(
        `SELECT EXISTS (SELECT 1 FROM pg_locks l CROSS JOIN LATERAL unnest(pg_blocking_pids(l.pid)) b(pid)
          WHERE l.${THIS_DATABASE} AND l.locktype = 'advisory' AND NOT l.granted AND l.classid::bigint = $1 AND l.objid::bigint = $2
            AND l.pid = ANY (pg_blocking_pids(b.pid))) AS stuck`,
        [HISTORY_LOCK_CLASS, Number(task.id)],
      )).rows[0].stuck === true;
      const until = async (check: () => Promise<boolean>): Promise<void> => {
        for (let i = 0; i < 500 && !(await check()); i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
      };
      let released = false;
      try {
        await holder.query('BEGIN');
        await holder.query('SELECT pg_advisory_xact_lock($1, $2)', [HISTORY_LOCK_CLASS, Number(task.id)]);
        // The write reopens the item the handler waits for: the handler's ready row goes.
        const reopened = server.ok(UPDATE_ITEM, { input: { id: schema.id, state: 'PENDING' } });
        await until(async () => (await waitingForHistory()) >= 1);
        // The claim finds the task busy, then waits for it with the handler's ready row in hand, or, that row held by the
        // write, answers at once.
        const claimed = server.ok(CLAIM_NEXT, { domain }, { session });
        let claimAnswered = false;
        void claimed.finally(() => { claimAnswered = true; }).catch(() => undefined);
        await until(async () => claimAnswered || (await waitingForHistory()) >= 2);
        const answers = Promise.all([reopened, claimed]);
        let settled = false;
        void answers.finally(() => { settled = true; }).catch(() => undefined);
        await holder.query('COMMIT');
        released = true;
        let deadlocked = false;
        while (!settled && !deadlocked) {
          deadlocked = await cycle();
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        expect(deadlocked).toBe(false);
        const [, claim] = await answers;
        // The handler waits for its reopened blocker again: nothing is handed out.
        expect(claim.claimNext).toBeNull();
      } finally {
        if (!released) await holder.query('ROLLBACK').catch(() => undefined);
        await holder.end();
        await watcher.end();
      }
    });
  });
} else {
  describe('a task write and a claim of its item', () => {
    it('take turns on SQLite: the write lock runs one writer at a time', async () => {
      const domain = freshDomain('no-deadlock');
      const { items: [only] } = await createTask(server, ['One'], { domain });
      const session = await startSession(server);
      const [claim] = await Promise.all([
        server.ok(CLAIM_NEXT, { domain }, { session }),
        server.ok(UPDATE_ITEM, { input: { id: only.id, state: 'DROPPED' } }),
      ]);
      expect([null, only.id]).toContain(claim.claimNext?.id ?? null);
    });
  });
}
