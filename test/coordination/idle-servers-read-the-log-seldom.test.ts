/**
 * Adding servers must not add work per write to every server. Each commit
 * on PostgreSQL notifies every server's change feed; a feed nobody wants
 * rows from (no subscription, no agent waiting for work) reads the log's end
 * at most every IDLE_READ_MS after such notifications, not once per commit
 * of every other server: the writer's own server has moved the commit's
 * changes into the log before it answered, so nothing waits for that read.
 * A feed that someone wants rows from still reads at each notification: a
 * subscriber on the other server hears every change. Two servers on one
 * PostgreSQL database (this is about notifications, which SQLite has none of).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDLE_READ_MS } from '../../src/services/kernel/changes/change-feed.js';
import { hearTailStatements } from '../fixtures/change-log.js';
import { UPDATE_ITEM } from '../fixtures/documents.js';
import { freshDomain } from '../fixtures/knowledge.js';
import { createTask } from '../fixtures/tasks.js';
import { startTestServer, type TestServer } from '../harness.js';

const onPostgres = Boolean(process.env.TEST_POSTGRES_URL);
const WRITES = 40;

describe.runIf(onPostgres)('an idle server beside a writing one (PostgreSQL)', () => {
  let writer: TestServer;
  let idle: TestServer;
  let idleStatements = 0;
  beforeAll(async () => {
    writer = await startTestServer();
    idle = await startTestServer({ file: writer.file });
    // The change feed reads on the server's tail connection.
    await hearTailStatements(idle.app.services.db, () => { idleStatements += 1; });
  });
  afterAll(async () => {
    await idle?.close();
    await writer?.close();
  });

  it(`reads the log at most once per ${IDLE_READ_MS} ms while the other server commits, not once per commit`, async () => {
    const { items: [item] } = await createTask(writer, ['Toggle me'], { domain: freshDomain('idle') });
    await new Promise((resolve) => setTimeout(resolve, IDLE_READ_MS * 2));
    idleStatements = 0;
    const started = performance.now();
    for (let i = 0; i < WRITES; i += 1) await writer.ok(UPDATE_ITEM, { input: { id: item!.id, state: i % 2 ? 'PENDING' : 'IN_PROGRESS' } });
    const elapsed = performance.now() - started;
    // Let a read held for the last commits run, then count: one statement per read.
    await new Promise((resolve) => setTimeout(resolve, IDLE_READ_MS * 2));
    // One read per IDLE_READ_MS at most, and one or two of the server's own timers (the claim sweeper) besides.
    const bound = Math.ceil((elapsed + IDLE_READ_MS * 2) / IDLE_READ_MS) + 2;
    console.log(`[idle server] ${WRITES} commits on the other server in ${Math.round(elapsed)} ms: ${idleStatements} statements here (at most ${bound})`);
    expect(idleStatements).toBeLessThanOrEqual(Math.min(bound, WRITES / 2));
    expect(idleStatements).toBeGreaterThan(0);
  });
});
