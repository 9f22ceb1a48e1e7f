import http from 'node:http';
import { Readable } from 'node:stream';
import v8 from 'node:v8';
import vm from 'node:vm';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { READ_SESSION } from '../fixtures/documents.js';
import { databaseState } from '../fixtures/nothing-recorded.js';
import { textOf } from '../fixtures/mcp.js';

/**
 * MCP sessions over HTTP are bounded (issue 16, finding 1) without locking
 * anyone out (issue 40, finding 8): capped per token (per client with auth
 * off, every loopback address being one) and in all, and at a cap the least
 * recently used session in no call is closed for the newcomer, whose
 * client gets the SDK's "Session not found" and initializes again; closed
 * when idle (their taskbase session kept), small in memory, and /mcp
 * refuses a foreign Host or Origin. Everything goes through the SDK's own
 * client over HTTP, except where the raw answer (status, body) is checked.
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

describe('at a token\'s cap and at the server\'s', () => {
  let server: TestServer;
  let origin: string;
  beforeAll(async () => {
    server = await startTestServer({
      env: {
        TASKBASE_TOKENS: `${A},${B},${C},${READER}:read`,
        TASKBASE_MCP_MAX_SESSIONS_PER_TOKEN: '2',
        TASKBASE_MCP_MAX_SESSIONS: '5',
      },
    });
    origin = server.app.server.url;
  });
  afterAll(async () => { await server?.close(); });

  it('lets the newcomer in and closes the least recently used session: the token\'s own at its cap, the server\'s at the total', async () => {
    const write = (who: Agent, content: string) => who.call('todo', { op: 'set', tasks: [content] });
    const older = await agent(origin, A, '?tools=step-ops', { 'x-session-key': 'chat-older' });
    const newer = await agent(origin, A, '?tools=step-ops');
    await write(older, 'Kept after the eviction');
    await write(newer, 'Used last');

    // A third session of A: A's least recently used (older, though opened first and listening all along) makes room.
    const third = await agent(origin, A, '?tools=step-ops');
    expect(textOf(await write(third, 'The newcomer works'))).toContain('The newcomer works');
    const gone = await older.call('todo', { op: 'view' }).then(() => null, (error: unknown) => error as StreamableHTTPError);
    expect(gone?.code).toBe(404);
    expect(gone?.message).toContain('Session not found');
    expect((await newer.call('todo', { op: 'view' })).isError).toBeFalsy();
    // The evicted client initializes again with its chat key: its taskbase session and plan were kept.
    const back = await agent(origin, A, '?tools=step-ops', { 'x-session-key': 'chat-older' });
    expect(textOf(await back.call('todo', { op: 'view' }))).toContain('Kept after the eviction');
    // back made room again, closing A's least recently used: third (newer was used since).
    expect(((await third.call('todo', { op: 'view' }).catch((error: unknown) => error)) as StreamableHTTPError).code).toBe(404);
    expect((await newer.call('todo', { op: 'view' })).isError).toBeFalsy();

    // Another token is held to its own cap, a read-only one too, and its sessions are not A's to close.
    const b = [await agent(origin, B), await agent(origin, B)];
    const reader = await agent(origin, READER);
    await reader.client.listTools();
    expect((await b[0].call('todo_write', { todos: [{ content: 'B works', status: 'pending' }] })).isError).toBeFalsy();
    await b[1].call('todo_write', { todos: [{ content: 'B used last', status: 'pending' }] });
    await back.call('todo', { op: 'view' });
    await newer.call('todo', { op: 'view' });

    // Five open in all (A's two, B's two, the reader's): C's first session closes the server's least recently used, the reader's.
    const c = await agent(origin, C);
    expect((await c.call('todo_write', { todos: [{ content: 'C got in', status: 'pending' }] })).isError).toBeFalsy();
    expect(((await reader.client.listTools().catch((error: unknown) => error)) as StreamableHTTPError).code).toBe(404);
    for (const open of [b[0], b[1], back, newer]) await open.client.listTools();

    for (const open of [back, newer, c, ...b]) {
      await open.transport.terminateSession();
      await open.client.close();
    }
    for (const closed of [older, third, reader]) await closed.client.close();
  });
});

/** A fetch for the SDK's client that connects from one loopback address, as another local process may. */
function fetchFrom(localAddress: string, agents: http.Agent[]): FetchLike {
  const pool = new http.Agent({ keepAlive: true });
  agents.push(pool);
  return (url, init = {}) => new Promise<Response>((resolve, reject) => {
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => { headers[name] = value; });
    const request = http.request(url, { method: init.method ?? 'GET', headers, localAddress, agent: pool }, (response) => {
      const answered = new Headers();
      for (const [name, value] of Object.entries(response.headers)) if (value !== undefined) answered.set(name, Array.isArray(value) ? value.join(', ') : value);
      const body = response.statusCode === 204 ? null : (Readable.toWeb(response) as ReadableStream<Uint8Array>);
      resolve(new Response(body, { status: response.statusCode, headers: answered }));
    });
    request.on('error', reject);
    init.signal?.addEventListener('abort', () => request.destroy(new DOMException('The client aborted the request', 'AbortError')));
    request.end(typeof init.body === 'string' ? init.body : undefined);
  });
}

describe('with auth off, local clients that never close their sessions', () => {
  let server: TestServer;
  let origin: string;
  const agents: http.Agent[] = [];
  const left: Agent[] = [];
  const CAP = 5;
  beforeAll(async () => {
    server = await startTestServer({ env: { TASKBASE_MCP_MAX_SESSIONS_PER_TOKEN: String(CAP), TASKBASE_MCP_MAX_SESSIONS: '40' } });
    origin = server.app.server.url;
  });
  afterAll(async () => {
    for (const open of left) await open.client.close().catch(() => undefined);
    for (const pool of agents) pool.destroy();
    await server?.close();
  });

  /** An MCP client of the machine at this loopback address, over the SDK's Streamable HTTP transport; it never ends its session. */
  async function localAgent(address: string): Promise<Agent> {
    const transport = new StreamableHTTPClientTransport(new URL('/mcp?tools=whole-list', origin), { fetch: fetchFrom(address, agents) });
    const client = new Client({ name: `local-${address}`, version: '1.0.0' });
    await client.connect(transport);
    const made: Agent = { client, transport, call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult };
    left.push(made);
    return made;
  }
  const write = (who: Agent, content: string) => who.call('todo_write', { todos: [{ content, status: 'pending' }] });
  const stillOpen = async (who: Agent) => (await who.client.listTools().then(() => 200, (error: unknown) => (error as StreamableHTTPError).code)) === 200;

  it('counts every loopback address as one client, and at its cap closes the least recently used idle session so a new agent gets in', async () => {
    // Five agents of the machine, from five loopback addresses, none of which will ever end its session.
    const local = [];
    for (let i = 1; i <= CAP; i++) local.push(await localAgent(`127.0.0.${i}`));
    // Used in an order that makes the one from 127.0.0.3 the least recently used.
    for (const i of [2, 0, 4, 1, 3]) expect((await write(local[i], `agent ${i}`)).isError).toBeFalsy();

    // A sixth, from yet another loopback address: it is the machine's sixth, so the least recently used one makes room.
    const newcomer = await localAgent('127.0.0.9');
    expect(textOf(await write(newcomer, 'the new agent works'))).toBe('Updated todo list: 1 pending, 0 in progress, 0 completed.');
    const evicted = await write(local[2], 'again').then(() => null, (error: unknown) => error as StreamableHTTPError);
    expect(evicted?.code).toBe(404);
    expect(evicted?.message).toContain('Session not found');
    for (const i of [0, 1, 3, 4]) expect((await write(local[i], `agent ${i} again`)).isError, `agent ${i}`).toBeFalsy();

    // A flood of initializes from 21 loopback addresses is answered, every one: it only churns the machine's own sessions.
    const started = Date.now();
    const flood = await Promise.all(Array.from({ length: 21 }, (_, i) => localAgent(`127.0.${10 + i}.1`)));
    const floodMs = Date.now() - started;
    expect(flood).toHaveLength(21);
    // After it, a new agent still gets in and works, and the machine holds no more than its cap.
    const after = await localAgent('127.0.0.1');
    expect((await write(after, 'after the flood')).isError).toBeFalsy();
    const open = [];
    for (const who of [...local, newcomer, ...flood]) if (await stillOpen(who)) open.push(who);
    expect(open.length).toBeLessThanOrEqual(CAP - 1);
    console.log(`flood of 21 loopback initializes answered in ${floodMs} ms; the machine kept ${open.length + 1} sessions (cap ${CAP})`);
  });
});

describe('idle sessions', () => {
  let server: TestServer;
  let origin: string;
  beforeAll(async () => {
    // 0.01 minutes is 600 ms: fractions of a minute are accepted so a test need not wait minutes.
    server = await startTestServer({ env: { TASKBASE_TOKENS: `${A},${B}`, TASKBASE_MCP_IDLE_MINUTES: '0.01' } });
    origin = server.app.server.url;
  });
  afterAll(async () => { await server?.close(); });

  it('closes a session its client left without DELETE, keeps its taskbase session and plan to rejoin, and keeps a listening one open', async () => {
    // Structured output on, for the session's id in the answers.
    const gone = await agent(origin, A, '?tools=whole-list&structured=1');
    const written = await gone.call('todo_write', { todos: [{ content: 'Survive the expiry', status: 'in_progress' }] });
    const sessionId = (written.structuredContent as { sessionId: string }).sessionId;
    const mcpSessionId = gone.transport.sessionId!;
    // B stays connected: the SDK's client holds its GET stream open, so its session is not idle.
    const listening = await agent(origin, B);

    // The client goes away without DELETE; the server closes its session once it has been idle for the idle time.
    await gone.client.close();
    const stale = async () => fetch(`${origin}/mcp`, {
      method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${A}`, 'mcp-session-id': mcpSessionId },
    });
    // A request naming it would keep it open, so look only once it has had the time to expire (the idle time, then the sweep).
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    let answer = await stale();
    for (const deadline = Date.now() + 60_000; answer.status !== 404 && Date.now() < deadline; answer = await stale()) {
      await new Promise((resolve) => setTimeout(resolve, 1_500));
    }
    expect(answer.status, 'the idle session was never closed').toBe(404);
    expect(await answer.json()).toEqual({
      jsonrpc: '2.0', id: 2, error: { code: -32001, message: expect.stringMatching(/^Session not found: .*was idle for 1 second/) },
    });
    const reopened = await agent(origin, A, '?tools=whole-list&structured=1', { 'x-session-id': sessionId });

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
    // They are all still open (the warm one and the rest): the token is at its cap, and the next still gets in,
    // its least recently used session closed for it.
    const next = await agent(origin, READER);
    expect((await next.client.listTools()).tools.map((tool) => tool.name)).toEqual(['todo_write']);
    await next.client.close();
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
