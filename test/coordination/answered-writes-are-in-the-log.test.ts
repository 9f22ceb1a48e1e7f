/**
 * A write is answered once its changes are in the change log, where every
 * reader on every server finds them: a person's change is in the agent's
 * very next steering line, wherever the agent calls. SQLite writes the log
 * at commit; on PostgreSQL the changes wait in the change queue until a read
 * of the log moves them (change-log.ts), and the writer's server waits for
 * its feed's read before it answers, at most LOGGED_WAIT_MS (the write is
 * committed either way). Each change is looked for with a plain read of the
 * log on a connection of the test's own, right after the answer; a process
 * with no feed (`taskbase mcp` over stdio, the CLI) moves its changes
 * itself. On a real database file, and on PostgreSQL in CI.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGGED_WAIT_MS } from '../../src/services/kernel/unit-of-work.js';
import { UPDATE_ITEM } from '../fixtures/documents.js';
import { createTask } from '../fixtures/tasks.js';
import { stdioAgent } from '../fixtures/change-log.js';
import { startTestServer, testDatabase, type TestServer } from '../harness.js';

const onPostgres = Boolean(process.env.TEST_POSTGRES_URL);
let server: TestServer;
let items: string[];
beforeAll(async () => {
  server = await startTestServer();
  const created = await createTask(server, Array.from({ length: 20 }, (_, i) => `Logged ${i}`), { domain: 'logged/answers' });
  items = created.items.map((item) => item.id as string);
});
afterAll(async () => { await server?.close(); });

/** How many changes the log holds about an item, read on a connection of the test's own. */
async function loggedAbout(itemId: string): Promise<number> {
  if (!onPostgres) {
    const rows = await server.app.services.db.reader.query(`SELECT COUNT(*) AS "n" FROM "changes" WHERE "itemId" = ?`, [Number(itemId)]);
    return Number(rows[0].n);
  }
  const client = new pg.Client({ connectionString: server.databaseUrl });
  await client.connect();
  try {
    return Number((await client.query(`SELECT COUNT(*) AS n FROM "changes" WHERE "itemId" = $1`, [Number(itemId)])).rows[0].n);
  } finally {
    await client.end();
  }
}

describe('an answered write', () => {
  it("is in the change log the moment it is answered, each of 20 people's changes", async () => {
    for (const id of items) {
      const before = await loggedAbout(id);
      await server.ok(UPDATE_ITEM, { input: { id, state: 'DONE' } });
      expect(await loggedAbout(id), `item ${id}`).toBe(before + 1);
    }
  });
});

if (onPostgres) {
  describe('PostgreSQL: while another server holds the change queue', () => {
    /** The lock movers of the queue take turns on: "tbchange" in ASCII (change-log.ts). */
    const QUEUE_LOCK = `x'${Buffer.from('tbchange').toString('hex')}'::bigint`;

    it(`waits for its changes to be moved into the log before it answers, at most ${LOGGED_WAIT_MS} ms, and is committed either way`, async () => {
      const admin = new pg.Client({ connectionString: server.databaseUrl });
      await admin.connect();
      const id = items[0]!;
      try {
        const before = await loggedAbout(id);
        // Another server's move of the queue, held: this server's feed cannot move its write's changes until it ends.
        await admin.query('BEGIN');
        await admin.query(`SELECT pg_advisory_xact_lock(${QUEUE_LOCK})`);
        const sent = performance.now();
        let answeredAt: number | null = null;
        const answer = server.ok(UPDATE_ITEM, { input: { id, state: 'PENDING' } }).then((data) => { answeredAt = performance.now(); return data; });
        await new Promise((resolve) => setTimeout(resolve, LOGGED_WAIT_MS / 2));
        expect(answeredAt, 'answered while its changes could not be moved into the log').toBeNull();
        // Held past the bound: the write is answered anyway (it is committed), its changes still queued.
        expect((await answer).updateItem.state).toBe('PENDING');
        expect(answeredAt! - sent).toBeGreaterThanOrEqual(LOGGED_WAIT_MS - 50);
        expect(await loggedAbout(id)).toBe(before);
        await admin.query('COMMIT');
        // Once the lock is free the next write's read moves both, in commit order.
        await server.ok(UPDATE_ITEM, { input: { id, state: 'DONE' } });
        expect(await loggedAbout(id)).toBe(before + 2);
      } finally {
        await admin.query('ROLLBACK').catch(() => undefined);
        await admin.end();
      }
    });
  });

  describe('PostgreSQL: a process with no change feed', () => {
    it('taskbase mcp over stdio, with no server on the database, moves its own changes into the log before it answers', { timeout: 60_000 }, async () => {
      // A database of its own with no server on it: nobody else moves the change queue.
      const { databaseUrl } = await testDatabase();
      const agent = await stdioAgent(databaseUrl);
      const client = new pg.Client({ connectionString: databaseUrl });
      try {
        await client.connect();
        const logged = async (taskId: string) => Number((await client.query(`SELECT COUNT(*) AS n FROM "changes" WHERE "taskId" = $1`, [Number(taskId)])).rows[0].n);
        const created = await agent.call('task', { title: 'Written over stdio', goal: 'g', items: 'First\nSecond', domain: 'logged/stdio' });
        const taskId = String(created.data.uid);
        expect(await logged(taskId), 'the task created, in the log when answered').toBe(1);
        await agent.call('task_item', { uid: taskId, item: created.data.items[0], state: 'done' });
        expect(await logged(taskId), 'the item settled, in the log when answered').toBe(2);
      } finally {
        await client.end().catch(() => undefined);
        await agent.close();
      }
    });
  });
}
