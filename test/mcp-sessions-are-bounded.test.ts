import http from 'node:http';
import v8 from 'node:v8';
import vm from 'node:vm';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.js';
import { READ_SESSION } from './fixtures/documents.js';
import { databaseState } from './fixtures/nothing-recorded.js';

/**
 * MCP sessions over HTTP are bounded (issue 16, finding 1): capped per token
 * and in all with a refusal that says what to do and records nothing, closed
 * when idle (their taskbase session kept), small in memory, and /mcp
 * refuses a foreign Host or Origin. Everything goes through the SDK's own
 * client over HTTP, except where the raw answer (status, headers) is checked.
 */
const A = 'secret-a';
const B = 'secret-b';
const C = 'secret-c';
const READER = 'secret-reader';

const INIT = JSON.stringify({
  jsonrpc: '2.0', id: 1, method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

interface Agent {
  client: Client;
  transport: StreamableHTTPClientTransport;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
}

async function agent(origin: string, token: string | null, query = '?tools=whole-list', headers: Record<string, string> = {}): Promise<Agent> {
  const transport = new StreamableHTTPClientTransport(new URL(`/mcp${query}`, origin), {
    requestInit: { headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers } },
  });
  const client = new Client({ name: 'taskbase-bounds', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport, call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult };
}

/** The error an initialize through the SDK's client is refused with. */
async function refusedConnect(origin: string, token: string | null): Promise<StreamableHTTPError> {
  const error = await agent(origin, token).then(
    () => { throw new Error('the initialize was accepted'); },
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(StreamableHTTPError);
  return error as StreamableHTTPError;
}

/** An initialize POSTed by hand, for the status, Retry-After and JSON-RPC body. */
async function rawInitialize(origin: string, token: string) {
  const response = await fetch(`${origin}/mcp?tools=whole-list`, {
    method: 'POST', body: INIT,
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
  });
  const text = await response.text();
  return { status: response.status, retryAfter: response.headers.get('retry-after'), sessionId: response.headers.get('mcp-session-id'), text };
}

describe('the session caps', () => {
  let server: TestServer;
  let origin: string;
  beforeAll(async () => {
    server = await startTestServer({
      env: {
        TASKBASE_TOKENS: `${A},${B},${C},${READER}:read`,
        TASKBASE_MCP_MAX_SESSIONS_PER_TOKEN: '2',
        TASKBASE_MCP_MAX_SESSIONS: '6',
      },
    });
    origin = server.app.server.url;
  });
  afterAll(async () => { await server?.close(); });

  it('holds each token, a read-only one too, to its cap and the server to its total; DELETE frees a slot; a refusal records nothing', async () => {
    const a = [await agent(origin, A), await agent(origin, A)];
    await a[0].call('todo_write', { todos: [{ content: 'Kept while refused', status: 'in_progress' }] });

    const before = await databaseState(server);
    const refused = await refusedConnect(origin, A);
    expect(refused.code).toBe(429);
    expect(refused.message).toContain('This bearer token has 2 MCP sessions open, the most one token may hold (TASKBASE_MCP_MAX_SESSIONS_PER_TOKEN=2)');
    expect(refused.message).toContain('DELETE /mcp');
    expect(refused.message).toContain('reuse an open session by sending its mcp-session-id');
    expect(refused.message).toContain('a session no request names for 10 minutes is closed');
    const raw = await rawInitialize(origin, A);
    expect(raw.status).toBe(429);
    expect(raw.sessionId).toBeNull();
    expect(Number(raw.retryAfter)).toBeGreaterThan(0);
    expect(JSON.parse(raw.text)).toEqual({
      jsonrpc: '2.0', id: 1,
      error: { code: -32000, message: expect.stringContaining('This bearer token has 2 MCP sessions open'), data: { open: 2, limit: 2 } },
    });
    // A refused initialize recorded nothing (a taskbase session starts at a connection's first tool call).
    expect(await databaseState(server)).toEqual(before);

    // Another token has its own cap; a read-only one is held to it too.
    const b = [await agent(origin, B), await agent(origin, B)];
    const reader = [await agent(origin, READER), await agent(origin, READER)];
    expect((await refusedConnect(origin, READER)).code).toBe(429);
    expect((await b[1].call('todo_write', { todos: [{ content: 'B works', status: 'pending' }] })).isError).toBeFalsy();

    // Six open in all: a token with none open meets the server's cap.
    const full = await refusedConnect(origin, C);
    expect(full.code).toBe(503);
    expect(full.message).toContain('The server has 6 MCP sessions open, the most it holds (TASKBASE_MCP_MAX_SESSIONS=6)');
    const afterRefusals = await databaseState(server);
    expect((await rawInitialize(origin, C)).status).toBe(503);
    expect(await databaseState(server)).toEqual(afterRefusals);

    // Ending a session with DELETE frees its slot: one more fits, and the token is full again after it.
    await a[1].transport.terminateSession();
    await a[1].client.close();
    const again = await agent(origin, A);
    expect((await again.client.listTools()).tools.map((tool) => tool.name)).toEqual(['todo_write']);
    expect((await refusedConnect(origin, A)).code).toBe(429);
    // The session that stayed open was never touched by any of it.
    const kept = await a[0].call('todo_write', { todos: [{ content: 'Kept while refused', status: 'completed' }] });
    expect(kept.isError).toBeFalsy();

    for (const open of [a[0], again, ...b, ...reader]) {
      await open.transport.terminateSession();
      await open.client.close();
    }
    // Every slot is free again: C, refused while the server was full, opens.
    const c = await agent(origin, C);
    await c.transport.terminateSession();
    await c.client.close();
  });
});

describe('with auth off', () => {
  let server: TestServer;
  let origin: string;
  beforeAll(async () => {
    server = await startTestServer({ env: { TASKBASE_MCP_MAX_SESSIONS_PER_TOKEN: '1' } });
    origin = server.app.server.url;
  });
  afterAll(async () => { await server?.close(); });

  it('caps sessions per client address, and says so', async () => {
    const first = await agent(origin, null);
    // The MCP session starts its taskbase session in the background: wait for it, so the snapshot holds it.
    for (let attempt = 0; attempt < 200 && (await databaseState(server)).counts.sessions < 1; attempt += 1) await new Promise((resolve) => setTimeout(resolve, 50));
    const before = await databaseState(server);
    const refused = await refusedConnect(origin, null);
    expect(refused.code).toBe(429);
    expect(refused.message).toMatch(/This client address \(\S*127\.0\.0\.1\) has 1 MCP sessions open, the most one client may hold while auth is off/);
    expect(refused.message).toContain('counts per address when TASKBASE_TOKENS is unset');
    expect(await databaseState(server)).toEqual(before);
    await first.transport.terminateSession();
    await first.client.close();
    const second = await agent(origin, null);
    await second.transport.terminateSession();
    await second.client.close();
  });
});

describe('idle sessions', () => {
  let server: TestServer;
  let origin: string;
  beforeAll(async () => {
    // 0.01 minutes is 600 ms: fractions of a minute are accepted so a test need not wait minutes.
    server = await startTestServer({ env: { TASKBASE_TOKENS: `${A},${B}`, TASKBASE_MCP_MAX_SESSIONS_PER_TOKEN: '1', TASKBASE_MCP_IDLE_MINUTES: '0.01' } });
    origin = server.app.server.url;
  });
  afterAll(async () => { await server?.close(); });

  it('closes a session its client left without DELETE, keeps its taskbase session and plan to rejoin, and keeps a listening one open', async () => {
    const gone = await agent(origin, A);
    const written = await gone.call('todo_write', { todos: [{ content: 'Survive the expiry', status: 'in_progress' }] });
    const sessionId = (written.structuredContent as { sessionId: string }).sessionId;
    const mcpSessionId = gone.transport.sessionId!;
    // B stays connected: the SDK's client holds its GET stream open, so its session is not idle.
    const listening = await agent(origin, B);

    // The client goes away without DELETE; its slot is held until the session expires.
    await gone.client.close();
    let reopened: Agent | null = null;
    const deadline = Date.now() + 60_000;
    while (!reopened) {
      expect(Date.now(), 'the idle session was never closed').toBeLessThan(deadline);
      reopened = await agent(origin, A, '?tools=whole-list', { 'x-session-id': sessionId }).catch((error: unknown) => {
        expect((error as StreamableHTTPError).code).toBe(429);
        return null;
      });
      if (!reopened) await new Promise((resolve) => setTimeout(resolve, 200));
    }

    const stale = await fetch(`${origin}/mcp`, {
      method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${A}`, 'mcp-session-id': mcpSessionId },
    });
    expect(stale.status).toBe(404);
    expect(((await stale.json()) as { error: { message: string } }).error.message).toContain('was idle for 1 second');

    // The new MCP session rejoined the same taskbase session: the plan is there.
    const resumed = await reopened.call('todo_write', { todos: [{ content: 'Survive the expiry', status: 'completed' }] });
    expect((resumed.structuredContent as { sessionId: string }).sessionId).toBe(sessionId);
    const session = (await server.gql(READ_SESSION, { id: sessionId }, { headers: { authorization: `Bearer ${A}` } })).data!.session;
    expect(session.plan.items.nodes.map((item: { text: string; state: string }) => `${item.text}:${item.state}`)).toEqual(['Survive the expiry:DONE']);

    // B, listening all along (many idle times), still has its session.
    expect((await listening.call('todo_write', { todos: [{ content: 'Still here', status: 'pending' }] })).isError).toBeFalsy();
    for (const open of [reopened, listening]) {
      await open.transport.terminateSession();
      await open.client.close();
    }
  });
});

describe('memory per session', () => {
  let server: TestServer;
  let origin: string;
  const SESSIONS = 300;
  beforeAll(async () => {
    server = await startTestServer({ env: { TASKBASE_TOKENS: `${READER}:read`, TASKBASE_MCP_MAX_SESSIONS_PER_TOKEN: String(SESSIONS + 1) } });
    origin = server.app.server.url;
  });
  afterAll(async () => { await server?.close(); });

  it(`holds ${SESSIONS} open sessions of one read-only token in under 50 KB of heap each`, async () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const heap = async () => {
      for (let i = 0; i < 3; i++) {
        gc();
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return process.memoryUsage().heapUsed;
    };
    // One first, so what every session shares (the registry, the SDK's modules) is built before measuring.
    const warm = await agent(origin, READER, '?tools=whole-list,knowledge-base');
    await warm.client.listTools();
    await warm.client.close();
    const before = await heap();
    for (let i = 0; i < SESSIONS; i += 20) {
      await Promise.all(Array.from({ length: 20 }, async () => {
        const open = await agent(origin, READER);
        await open.client.listTools();
        // The client goes (its GET stream with it); the session stays open on the server until it idles out.
        await open.client.close();
      }));
    }
    const perSession = ((await heap()) - before) / SESSIONS;
    // A McpServer with every tool per session holds about 190 KB. The server keeps about 13 KB (transport and protocol state),
    // and this process also holds what the closed clients leave (about 10 KB each): about 23 KB in all, under the bound.
    expect(perSession).toBeLessThan(50 * 1024);
    // They are all still open (the warm one and the rest): the token's cap refuses the next.
    expect((await refusedConnect(origin, READER)).code).toBe(429);
  });
});

describe('a foreign Host or Origin on /mcp', () => {
  let server: TestServer;
  let origin: string;
  beforeAll(async () => {
    server = await startTestServer({ env: { TASKBASE_TOKENS: A } });
    origin = server.app.server.url;
  });
  afterAll(async () => { await server?.close(); });

  function post(headers: Record<string, string>): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const request = http.request(`${origin}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${A}`, ...headers },
      }, (response) => {
        let body = '';
        response.on('data', (chunk) => { body += chunk; });
        response.on('end', () => resolve({ status: response.statusCode!, body }));
      });
      request.on('error', reject);
      request.end(INIT);
    });
  }

  it('refuses a DNS-rebinding Host and a foreign page\'s Origin with 403, starting no session; the SDK client and the own origin are answered', async () => {
    const before = await databaseState(server);
    const rebound = await post({ host: 'attacker.example:4000' });
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body).error.message).toContain('does not answer to the Host "attacker.example:4000"');
    const page = await post({ origin: 'http://attacker.example' });
    expect(page.status).toBe(403);
    expect(JSON.parse(page.body).error.message).toContain('Requests from a web page at "http://attacker.example" are refused');
    const viaClient = await agent(origin, A, '?tools=whole-list', { origin: 'http://attacker.example' }).then(() => null, (error: unknown) => error);
    expect((viaClient as StreamableHTTPError).code).toBe(403);
    expect(await databaseState(server)).toEqual(before);

    // The dashboard's own origin, and a client that sends none (the SDK's), are answered.
    expect((await post({ origin })).status).toBe(200);
    const plain = await agent(origin, A);
    expect((await plain.client.listTools()).tools.map((tool) => tool.name)).toEqual(['todo_write']);
    await plain.client.close();
  });
});
