/**
 * With the database out of reach, a request is answered UNAVAILABLE with
 * HTTP 503 and words that say to retry (never INTERNAL_SERVER_ERROR, never
 * the driver's text), an MCP tool call says the same as an "Error: " result,
 * nothing is recorded, and the server recovers by itself once the database
 * is back.
 *
 * PostgreSQL is made unreachable as an outage looks to the server: the
 * database stops accepting connections and the server's connections are
 * terminated (reads and writes both fail). SQLite has no server to lose,
 * and a file it has open stays open whatever happens to its name or mode;
 * its outage is another process holding the file's write lock past the
 * busy timeout (an operator's backup or a second writer), so every write
 * fails with SQLITE_BUSY while reads, which WAL does not block, go on.
 *
 * On PostgreSQL also a restart under load (a cluster of the test's own, so
 * the suite's shared one stays up): 3 built server processes, writers and
 * claimNext callers on GraphQL and MCP. Every error answered meanwhile is
 * UNAVAILABLE with 503; a claimNext whose answer was lost, sent again with
 * its idempotencyKey, answers the claim it made; nothing acknowledged is
 * lost, and no item is left claimed by a session that was never told.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { startBuiltServers, type BuiltServer } from '../built-server.js';
import { databaseState } from '../fixtures/nothing-recorded.js';
import { startPrivatePostgres, type PrivatePostgres } from '../fixtures/private-postgres.js';

const onPostgres = Boolean(process.env.TEST_POSTGRES_URL);
const CREATE_OUTAGE_NOTE = 'mutation { createNote(input: { title: "During the outage", body: "b", domain: "outage/notes" }) { id } }';
const READ = '{ memories(domain: "outage") { totalCount } }';

let server: TestServer;
let mcp: Client;

/** Takes the database away, as described above; returns how to bring it back. */
async function takeDatabaseAway(): Promise<() => Promise<void>> {
  if (onPostgres) {
    const { default: pg } = await import('pg');
    const admin = new pg.Client({ connectionString: `${process.env.TEST_POSTGRES_URL!.replace(/\/+$/, '')}/postgres` });
    await admin.connect();
    await admin.query(`ALTER DATABASE "${server.file}" ALLOW_CONNECTIONS false`);
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [server.file]);
    return async () => {
      await admin.query(`ALTER DATABASE "${server.file}" ALLOW_CONNECTIONS true`);
      await admin.end();
    };
  }
  const { default: Sqlite } = await import('better-sqlite3');
  const holder = new Sqlite(server.file);
  holder.exec('BEGIN IMMEDIATE');
  return async () => {
    holder.exec('ROLLBACK');
    holder.close();
  };
}

function expectUnavailable(answer: { status: number; errors?: { message: string; extensions?: { code?: string } }[] }) {
  expect(answer.status).toBe(503);
  expect(answer.errors).toHaveLength(1);
  expect(answer.errors![0].extensions).toEqual({ code: 'UNAVAILABLE' });
  expect(answer.errors![0].message).toMatch(/^The database cannot be reached right now, so nothing was read or recorded\. Retry/);
}

beforeAll(async () => {
  server = await startTestServer();
  mcp = new Client({ name: 'outage-agent', version: '1.0.0' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL('/mcp?tools=knowledge-base', server.app.server.url)));
});
afterAll(async () => {
  await mcp?.close();
  await server?.close();
});

describe(`with the database out of reach (${onPostgres ? 'PostgreSQL refusing connections' : 'the SQLite file locked by another process'})`, () => {
  it('answers writes, tool calls and (on PostgreSQL) reads UNAVAILABLE with 503, records nothing, and recovers when it is back', async () => {
    await server.ok(CREATE_OUTAGE_NOTE.replace('During the outage', 'Before the outage'));
    const before = await databaseState(server);
    const bringBack = await takeDatabaseAway();
    try {
      expectUnavailable(await server.gql(CREATE_OUTAGE_NOTE));
      const tool = (await mcp.callTool({ name: 'remember', arguments: { title: 'During the outage', body: 'b', domain: 'outage/notes' } })) as CallToolResult;
      expect(tool.isError).toBe(true);
      expect(tool.content).toEqual([{ type: 'text', text: expect.stringMatching(/^Error: The database cannot be reached right now, so nothing was read or recorded\. Retry/) }]);
      const read = await server.gql(READ);
      if (onPostgres) {
        expectUnavailable(read);
        expect((await fetch(server.app.server.url + '/healthz')).status).toBe(503);
      } else {
        // WAL lets the SQLite reader go on past another writer's lock: what was committed stays readable.
        expect(read.data).toEqual({ memories: { totalCount: 1 } });
      }
    } finally {
      await bringBack();
    }
    // Back: the same requests are answered, and what was refused left no trace.
    expect(await databaseState(server)).toEqual(before);
    expect((await server.gql(READ)).data).toEqual({ memories: { totalCount: 1 } });
    expect((await server.gql(CREATE_OUTAGE_NOTE)).data?.createNote.id).toBeTruthy();
    const tool = (await mcp.callTool({ name: 'remember', arguments: { title: 'After the outage', body: 'b', domain: 'outage/notes' } })) as CallToolResult;
    expect(tool.isError).toBeFalsy();
    expect((await server.gql(READ)).data).toEqual({ memories: { totalCount: 3 } });
  });
});

describe('a document with two operations', () => {
  it('is refused with 400 BAD_REQUEST saying to send operationName, or naming the operations when the name matches none', async () => {
    const response = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'query A { access } mutation B { startSession { id } }' }) });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { errors: { message: string; extensions: { code: string } }[] };
    expect(body.errors[0].extensions.code).toBe('BAD_REQUEST');
    expect(body.errors[0].message).toContain('Send operationName');
    const wrong = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'query A { access } query B { access }', operationName: 'C' }) });
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as typeof body).errors[0].message).toContain('no operation named "C"; its operations are "A", "B"');
    const named = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'query A { access } query B { access }', operationName: 'B' }) });
    expect(await named.json()).toEqual({ data: { access: 'WRITE' } });
  });
});

if (onPostgres) {
  describe('a PostgreSQL restart under load, with 3 server processes', () => {
    let cluster: PrivatePostgres | undefined;
    let servers: BuiltServer[] = [];
    let stopServers: (() => Promise<void>) | undefined;
    const agents: Client[] = [];
    beforeAll(async () => {
      cluster = await startPrivatePostgres(`taskbase_test_restart_${process.pid}`);
      ({ servers, stop: stopServers } = await startBuiltServers(cluster.databaseUrl, 3, 'taskbase-restart-'));
    }, 120_000);
    afterAll(async () => {
      for (const agent of agents) await agent.close().catch(() => undefined);
      await stopServers?.();
      await cluster?.remove();
    });

    interface Answer { status: number; data?: any; errors?: { message: string; extensions?: { code?: string } }[] }
    async function via(n: number, query: string, variables: Record<string, unknown>, session?: string): Promise<Answer> {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (session) headers['x-session-id'] = session;
      const response = await fetch(`${servers[n % servers.length]!.base}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
      return { status: response.status, ...((await response.json()) as Omit<Answer, 'status'>) };
    }
    async function ok(n: number, query: string, variables: Record<string, unknown> = {}, session?: string): Promise<any> {
      const answer = await via(n, query, variables, session);
      if (answer.errors?.length) throw new Error(`server ${n % servers.length + 1} answered errors: ${JSON.stringify(answer.errors)}`);
      return answer.data;
    }
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

    const CLAIM_NEXT_WITH_KEY = `mutation($domain: String!, $key: String) { claimNext(domain: $domain, ttlSeconds: 600, idempotencyKey: $key) { id } }`;
    const DONE = `mutation($id: ID!) { updateItem(input: { id: $id, state: DONE }) { id state } }`;
    const NOTE = `mutation($title: String!) { createNote(input: { title: $title, body: "Written while PostgreSQL restarts.", domain: "restart/notes" }) { id } }`;
    const UNAVAILABLE = /^The database cannot be reached right now, so nothing was read or recorded\. Retry/;

    it('answers every error UNAVAILABLE (503) on GraphQL and MCP, a claimNext retried with its key answers the same claim, and nothing acknowledged is lost', async () => {
      const domain = 'restart/claims';
      const ids = await Promise.all([0, 1, 2].map(async (n) => (await ok(n, `mutation($input: CreateTaskInput!) { createTask(input: $input) { items { id } } }`, {
        input: { title: `Restart batch ${n + 1}`, goal: 'Claimed and done while PostgreSQL restarts.', domain, items: Array.from({ length: 100 }, (_, i) => `Batch ${n + 1} item ${i + 1}`) },
      })).createTask.items.map((item: { id: string }) => item.id)));
      expect(ids.flat()).toHaveLength(300);
      const claimers = await Promise.all([0, 1, 2, 3].map(async (n) => (await ok(n, 'mutation { startSession { id } }')).startSession.id as string));
      for (const n of [1, 2]) {
        const agent = new Client({ name: `restart-agent-${n}`, version: '1.0.0' });
        await agent.connect(new StreamableHTTPClientTransport(new URL('/mcp?tools=knowledge-base', servers[n]!.base)));
        agents.push(agent);
      }

      /** Every answer that was not a success, by where it came from: each must be UNAVAILABLE. */
      const wrong: string[] = [];
      let unavailable = 0;
      const refusal = (where: string, answer: Answer): boolean => {
        if (!answer.errors?.length) return false;
        const [error] = answer.errors;
        if (answer.status === 503 && error!.extensions?.code === 'UNAVAILABLE' && UNAVAILABLE.test(error!.message)) unavailable += 1;
        else wrong.push(`${where}: HTTP ${answer.status} ${JSON.stringify(answer.errors)}`);
        return true;
      };

      let running = true;
      const notes: string[] = [];
      let mcpNotes = 0;
      /** Per claimer: the items it was told it holds, the keys whose answer it never got, the items it was told are DONE. */
      const told = claimers.map(() => new Set<string>());
      const lostKeys = claimers.map(() => [] as string[]);
      const done = new Set<string>();
      const undone = claimers.map(() => [] as string[]);

      const writer = async (n: number) => {
        for (let round = 0; running; round += 1) {
          const answer = await via(n, NOTE, { title: `Note ${n}.${round}` });
          if (!refusal(`createNote via server ${n % 3 + 1}`, answer)) notes.push(answer.data.createNote.id);
          await pause(40);
        }
      };
      const claimer = async (c: number) => {
        for (let round = 0; running; round += 1) {
          const key = `restart-${c}-${round}`;
          const answer = await via(c, CLAIM_NEXT_WITH_KEY, { domain, key }, claimers[c]);
          if (refusal(`claimNext via server ${c % 3 + 1}`, answer)) lostKeys[c]!.push(key);
          else if (answer.data.claimNext) {
            const item = answer.data.claimNext.id as string;
            told[c]!.add(item);
            const finished = await via(c + 1, DONE, { id: item }, claimers[c]);
            if (refusal(`updateItem DONE via server ${(c + 1) % 3 + 1}`, finished)) undone[c]!.push(item);
            else done.add(item);
          }
          await pause(40);
        }
      };
      const agent = async (a: number) => {
        for (let round = 0; running; round += 1) {
          const [name, args] = round % 2 === 0
            ? ['remember', { title: `Agent ${a} note ${round}`, body: 'Written while PostgreSQL restarts.', domain: 'restart/mcp' }]
            : ['task_next', { domain: 'restart/mcp-claims' }];
          try {
            const result = (await agents[a]!.callTool({ name, arguments: args })) as CallToolResult;
            const text = result.content[0]?.type === 'text' ? result.content[0].text : '';
            if (result.isError) {
              if (/^Error: The database cannot be reached right now, so nothing was read or recorded\. Retry/.test(text)) unavailable += 1;
              else wrong.push(`MCP ${name} via server ${a + 2}: ${text}`);
            } else if (name === 'remember') mcpNotes += 1;
          } catch (error) {
            // The HTTP transport answers 503 with the same words when it cannot reach the database before the tool runs.
            if (/The database cannot be reached right now/.test(String(error))) unavailable += 1;
            else wrong.push(`MCP ${name} via server ${a + 2} threw: ${String(error)}`);
          }
          await pause(40);
        }
      };

      const load = Promise.all([
        ...[0, 1, 2].map(writer),
        ...claimers.map((_, c) => claimer(c)),
        ...[0, 1].map(agent),
      ]);
      await pause(1_500);
      await cluster!.restart(1_500);
      // Back: every server answers again without a restart of its own.
      for (const server of servers) {
        const deadline = Date.now() + 20_000;
        while ((await fetch(`${server.base}/healthz`)).status !== 200) {
          expect(Date.now(), `${server.base} did not come back within 20 s`).toBeLessThan(deadline);
          await pause(200);
        }
      }
      await pause(2_000);
      running = false;
      await load;

      console.log(`PostgreSQL restart under load, 3 servers: ${notes.length} notes and ${done.size} DONE acknowledged on GraphQL, ${mcpNotes} notes on MCP; ` +
        `${unavailable} answered UNAVAILABLE, ${wrong.length} otherwise; ${lostKeys.flat().length} claimNext answers lost`);
      expect(wrong).toEqual([]);
      expect(unavailable, 'the restart refused nothing: the load missed it').toBeGreaterThan(0);

      // A lost claimNext, sent again with its key, answers the claim it made (or makes the one it did not).
      // Each claim is finished as soon as it is known, as an agent would: a session holds at most 20 live claims, and
      // a restart can leave more lost answers than that, each of which, sent again, makes the claim it did not.
      for (const [c, keys] of lostKeys.entries()) {
        const finish = async (item: string) => {
          expect((await ok(c, DONE, { id: item }, claimers[c])).updateItem.state).toBe('DONE');
          done.add(item);
        };
        for (const item of undone[c]!) await finish(item);
        for (const key of keys) {
          const retried = (await ok(c, CLAIM_NEXT_WITH_KEY, { domain, key }, claimers[c])).claimNext;
          if (retried) {
            told[c]!.add(retried.id);
            await finish(retried.id);
          }
        }
      }
      // No item is left claimed by a session that was not told it holds it, and every DONE stands.
      for (const [c, session] of claimers.entries()) {
        const held = (await ok(0, `query($id: ID!) { session(id: $id) { claims { id } } }`, { id: session })).session.claims.map((item: { id: string }) => item.id);
        expect(held.filter((item: string) => !done.has(item)), `session ${session} holds items it was never told of`).toEqual([]);
        for (const item of told[c]!) expect((await ok(1, 'query($id: ID!) { item(id: $id) { state claim { session { id } } } }', { id: item })).item).toEqual({ state: 'DONE', claim: null });
      }
      // Every item is done (and its claimer was told so) or unclaimed: none sits claimed by a caller that got an error.
      const items: { id: string; state: string; claim: unknown }[] = [];
      for (const [n, batch] of ids.entries()) {
        const task = (await ok(n, 'query($id: ID!) { item(id: $id) { task { items(first: 200) { nodes { id state claim { session { id } } } } } } }', { id: batch[0] })).item.task;
        items.push(...task.items.nodes);
      }
      expect(items.filter((item) => item.claim !== null)).toEqual([]);
      expect(items.filter((item) => item.state === 'DONE').map((item) => item.id).sort()).toEqual([...done].sort());
      // Every acknowledged note is there.
      for (const id of notes) expect((await ok(Number(id) % 3, 'query($id: ID!) { memory(id: $id) { id } }', { id })).memory?.id).toBe(id);
      expect((await ok(0, '{ memories(domain: "restart/mcp") { totalCount } }')).memories.totalCount).toBeGreaterThanOrEqual(mcpNotes);
    }, 90_000);
  });
}
