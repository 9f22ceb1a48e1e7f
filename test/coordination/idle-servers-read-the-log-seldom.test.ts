/**
 * Adding writers must not add work per write to every server. On
 * PostgreSQL each commit notifies every server's change feed; a feed nobody
 * wants rows from (no subscription, no agent waiting for work) reads the
 * log's end at most every IDLE_READ_MS after such notifications, not once
 * per commit of every other process: the writing process moved its commit's
 * changes into the log before it answered, so nothing waits for that read.
 * On SQLite, which has no notifications, the feed polls at that pace anyway.
 * Another process (`taskbase mcp` over stdio) writes beside the server; the
 * server's own feed statements are counted on its tail connection.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDLE_READ_MS } from '../../src/services/kernel/changes/change-feed.js';
import { hearTailStatements, stdioAgent, type StdioAgent } from '../fixtures/change-log.js';
import { freshDomain } from '../fixtures/knowledge.js';
import { startTestServer, type TestServer } from '../harness.js';

const WRITES = 40;

describe('a server with nobody wanting changes, beside another process that writes', () => {
  let server: TestServer;
  let agent: StdioAgent;
  let statements = 0;
  beforeAll(async () => {
    server = await startTestServer();
    await hearTailStatements(server.app.services.db, () => { statements += 1; });
    agent = await stdioAgent(server.databaseUrl);
  });
  afterAll(async () => {
    await agent?.close();
    await server?.close();
  });

  it(`reads the log at most once per ${IDLE_READ_MS} ms while the other process commits, not once per commit`, async () => {
    const created = await agent.call('task', { title: 'Toggled over stdio', goal: 'g', items: 'Toggle me', domain: freshDomain('idle') });
    const uid = created.data.uid as string;
    const item = created.data.items[0];
    await new Promise((resolve) => setTimeout(resolve, IDLE_READ_MS * 2));
    statements = 0;
    const started = performance.now();
    for (let i = 0; i < WRITES; i += 1) await agent.call('task_item', { uid, item, state: i % 2 ? 'todo' : 'doing' });
    const elapsed = performance.now() - started;
    // Let a read held for the last commits run, then count: one statement per read.
    await new Promise((resolve) => setTimeout(resolve, IDLE_READ_MS * 2));
    // One read per IDLE_READ_MS at most, and one or two of the server's own timers (the claim sweeper) besides.
    const bound = Math.ceil((elapsed + IDLE_READ_MS * 2) / IDLE_READ_MS) + 3;
    console.log(`[idle server] ${WRITES} commits by another process in ${Math.round(elapsed)} ms: ${statements} statements here (at most ${bound})`);
    expect(statements).toBeLessThanOrEqual(bound);
    // It still hears the other process: the log's end is read.
    expect(statements).toBeGreaterThan(0);
  });
});
