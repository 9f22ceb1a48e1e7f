/**
 * claimNext under contention (DESIGN.md "Scale-out"): 50 agents take the 200
 * ready items of one domain at once, through two built server processes on
 * one PostgreSQL (SKIP LOCKED) or one on SQLite (the write lock). Every item
 * is handed out exactly once and none twice, and no call fails. And an agent
 * process killed while holding claims: its items come back to ready when the
 * leases end, with nothing to clean up. The figures are printed for the
 * closing note.
 */
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, testDatabase, type TestServer } from '../harness.js';
import { root, startBuiltServers, type BuiltServer } from '../built-server.js';
import { CLAIM_NEXT, READY, SESSION_CLAIMS } from '../fixtures/documents.js';
import { startSession } from '../fixtures/sessions.js';

const SERVER_COUNT = process.env.TEST_POSTGRES_URL ? 2 : 1;
const DATABASE = process.env.TEST_POSTGRES_URL ? 'PostgreSQL' : 'SQLite';
const AGENTS = 50;
const TASKS = 4;
const ITEMS_PER_TASK = 50;
const DOMAIN = 'acme/backlog';

interface Answer { data?: any; errors?: { message: string; extensions?: { code?: string } }[] }

describe(`claimNext by ${AGENTS} agents through ${SERVER_COUNT} server process(es) on ${DATABASE}`, () => {
  let servers: BuiltServer[] = [];
  let stopServers: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    const { databaseUrl } = await testDatabase();
    ({ servers, stop: stopServers } = await startBuiltServers(databaseUrl, SERVER_COUNT, 'taskbase-claims-'));
  }, 120_000);

  afterAll(async () => {
    await stopServers?.();
  });

  async function call(via: number, query: string, variables: Record<string, unknown>, session?: string): Promise<Answer> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (session) headers['x-session-id'] = session;
    const response = await fetch(`${servers[via % servers.length]!.base}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
    return (await response.json()) as Answer;
  }

  async function ok(via: number, query: string, variables: Record<string, unknown>, session?: string): Promise<any> {
    const answer = await call(via, query, variables, session);
    if (answer.errors?.length) throw new Error(`unexpected errors: ${JSON.stringify(answer.errors)}`);
    return answer.data;
  }

  it('hands every ready item out exactly once, and none twice', async () => {
    const all: string[] = [];
    for (let t = 0; t < TASKS; t += 1) {
      const items = Array.from({ length: ITEMS_PER_TASK }, (_, i) => `Item ${t}.${i}`);
      const made = await ok(t, `mutation($input: CreateTaskInput!) { createTask(input: $input) { items { id } } }`, {
        input: { title: `Backlog ${t}`, goal: 'Work the backlog.', items, domain: DOMAIN },
      });
      all.push(...made.createTask.items.map((item: { id: string }) => item.id));
    }
    const sessions = await Promise.all(Array.from({ length: AGENTS }, async (_, agent) =>
      (await ok(agent, `mutation { startSession { id } }`, {})).startSession.id as string));

    const handed: string[] = [];
    const perAgent = new Map<string, string[]>();
    const failures: string[] = [];
    let requests = 0;
    await Promise.all(sessions.map(async (session, agent) => {
      const mine: string[] = [];
      perAgent.set(session, mine);
      // Each agent alternates between the servers, so both hand out items to every agent.
      for (let turn = 0; ; turn += 1) {
        requests += 1;
        const answer = await call(agent + turn, CLAIM_NEXT, { domain: DOMAIN, ttlSeconds: 900 }, session);
        if (answer.errors?.length) {
          failures.push(JSON.stringify(answer.errors));
          return;
        }
        const item = answer.data!.claimNext;
        if (!item) return;
        expect(item.claim.session.id).toBe(session);
        mine.push(item.id);
        handed.push(item.id);
      }
    }));

    const twice = handed.length - new Set(handed).size;
    console.log(`claimNext on ${DATABASE}: ${AGENTS} agents, ${SERVER_COUNT} server process(es), ${all.length} items, ${requests} calls: ` +
      `${new Set(handed).size} handed out, ${twice} handed out twice, ${failures.length} failed`);
    expect(failures).toEqual([]);
    expect(twice).toBe(0);
    expect([...handed].sort()).toEqual([...all].sort());
    // What each agent was told it holds is what the database says it holds.
    for (const [session, mine] of perAgent) {
      const { session: read } = await ok(0, SESSION_CLAIMS, { id: session });
      expect(read.claims.map((item: { id: string }) => item.id).sort()).toEqual([...mine].sort());
    }
    expect((await ok(1, READY, { domain: DOMAIN })).ready).toEqual([]);
  }, 240_000);
});

describe('an agent process killed while holding claims', () => {
  let server: TestServer;
  beforeAll(async () => { server = await startTestServer(); });
  afterAll(async () => { await server?.close(); });

  it('leaves its items to come back to ready when the leases end', async () => {
    const domain = 'acme/killed';
    const made = await server.ok(`mutation($input: CreateTaskInput!) { createTask(input: $input) { items { id } } }`, {
      input: { title: 'Work for a doomed agent', goal: 'Survive the agent.', items: ['One', 'Two', 'Three'], domain },
    });
    const ids = made.createTask.items.map((item: { id: string }) => item.id);

    // A real agent: `taskbase mcp` over stdio, a process of its own on the same database.
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [path.join(root, 'dist/src/cli.js'), 'mcp', '--tools', 'knowledge-base', '--structured'],
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: server.databaseUrl, LOG_LEVEL: 'warn' },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'doomed-agent', version: '1.0.0' });
    await client.connect(transport);
    const expiries: number[] = [];
    for (let n = 0; n < 2; n += 1) {
      const result = (await client.callTool({ name: 'task_next', arguments: { domain, ttl_seconds: 10 } })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      const data = result.structuredContent as { item: { id: string }; claim: { expires_at: string } };
      expect(data.item.id).toBe(ids[n]);
      expiries.push(Date.parse(data.claim.expires_at));
    }
    expect((await server.ok(READY, { domain })).ready.map((item: { id: string }) => item.id)).toEqual([ids[2]]);

    process.kill(transport.pid!, 'SIGKILL');
    await transport.close().catch(() => undefined);

    // Nothing sweeps: once the database's clock passes the leases, the rows it left are no claims.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.max(...expiries) - Date.now()) + 1_500));
    expect((await server.ok(READY, { domain })).ready.map((item: { id: string }) => item.id)).toEqual(ids);
    const survivor = await startSession(server);
    expect((await server.ok(CLAIM_NEXT, { domain }, { session: survivor })).claimNext.id).toBe(ids[0]);
  }, 60_000);
});
