/**
 * A flood cannot lock out the local user: slow bodies from one address hold
 * at most the per-address cap (each new connection past it closes the
 * oldest that has proven nothing, with 429) and each is cut off (408), while
 * a fresh request from the same address, with a token or with auth off, is
 * answered; one token cannot hold more requests than its cap. Loopback
 * only; every socket is bounded in count and closed by the server.
 */
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';

/** A raw client: what it was sent back, and a promise that settles when the server closes it. */
interface RawClient { socket: net.Socket; received(): string; closed: Promise<void> }

function rawClient(port: number, localAddress = '127.0.0.1'): Promise<RawClient> {
  return new Promise((resolve, reject) => {
    let received = '';
    const socket = net.connect({ host: '127.0.0.1', port, localAddress });
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.setEncoding('utf8').on('data', (chunk) => { received += chunk; });
    socket.on('error', () => undefined); // a reset is a close, which is what the test waits for
    socket.once('connect', () => resolve({ socket, received: () => received, closed }));
    socket.once('error', reject);
  });
}

/** Sends the headers of a POST whose 1,000-byte body then arrives one byte every 200 ms, until the server closes it. */
function dripBody(client: RawClient, host: string, token?: string): void {
  const auth = token ? `Authorization: Bearer ${token}\r\n` : '';
  client.socket.write(`POST /graphql HTTP/1.1\r\nHost: ${host}\r\n${auth}Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n`);
  const timer = setInterval(() => { if (!client.socket.destroyed) client.socket.write('{'); }, 200);
  void client.closed.then(() => clearInterval(timer));
}

/** One ordinary GraphQL request from `localAddress` (with a bearer token when given): status and body. */
function query(url: string, localAddress: string, token?: string, text = '{ reminderSettings { enabled } }'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ query: text });
    const headers: Record<string, string | number> = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) };
    if (token) headers.authorization = `Bearer ${token}`;
    const req = http.request(url, { method: 'POST', localAddress, agent: false, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk) => { text += chunk; }).on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject).end(body);
  });
}

const statusOf = (client: RawClient) => /^HTTP\/1\.1 (\d{3})/.exec(client.received())?.[1] ?? 'none';

/** Opens `count` connections from 127.0.0.1 and starts a slow body on each, one after the other (each new one may close an older one). */
async function flood(port: number, host: string, count: number, token?: string): Promise<RawClient[]> {
  const clients: RawClient[] = [];
  for (let i = 0; i < count; i += 1) {
    const client = await rawClient(port);
    dripBody(client, host, token);
    clients.push(client);
  }
  return clients;
}

const openConnections = (server: TestServer) => new Promise<number>((resolve) => server.app.server.http.getConnections((_e, n) => resolve(n)));

describe('a slow-body flood from one address, auth off', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      env: { TASKBASE_HEADERS_TIMEOUT_MS: '2000', TASKBASE_BODY_TIMEOUT_MS: '4000', TASKBASE_MAX_CONNECTIONS_PER_CLIENT: '20' },
    });
  });
  afterAll(async () => { await server?.close(); });

  it('holds at most the per-address cap, and a fresh request from the same address is answered', async () => {
    const { port, host } = new URL(server.url);
    const slow = await flood(Number(port), host, 200);

    // A fresh request from the flooding address itself is answered as usual, and so is another address.
    for (const address of ['127.0.0.1', '127.0.0.1', '127.0.0.2']) {
      const probe = await query(server.url, address);
      expect(probe.status).toBe(200);
      expect(JSON.parse(probe.body)).toEqual({ data: { reminderSettings: { enabled: true } } });
    }
    // The flood never holds more than its cap, whatever it opens: the others were answered 429 at once.
    expect(slow.filter((client) => client.received() === '').length).toBeLessThanOrEqual(20);

    // The server closes every flooding connection itself: the oldest to make room (429, saying why), the rest when their body times out (408).
    await Promise.all(slow.map((client) => client.closed));
    const statuses = slow.map(statusOf);
    expect(statuses.filter((s) => s === '429').length).toBeGreaterThanOrEqual(180);
    expect(statuses.every((s) => s === '429' || s === '408')).toBe(true);
    const evicted = JSON.parse(slow[0].received().split('\r\n\r\n')[1]).errors[0];
    expect(evicted.extensions.code).toBe('TOO_LARGE');
    expect(evicted.message).toContain('TASKBASE_MAX_CONNECTIONS_PER_CLIENT');
  });

  it('never closes a connection that sent a whole request to make room for the flood', async () => {
    const { port, host } = new URL(server.url);
    const body = JSON.stringify({ query: '{ reminderSettings { enabled } }' });
    const request = `POST /graphql HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    const agent = await rawClient(Number(port));
    const answers = () => agent.received().match(/^HTTP\/1\.1 \d{3}/gm) ?? [];
    agent.socket.write(request);
    while (answers().length < 1) await new Promise((resolve) => setTimeout(resolve, 20));
    const slow = await flood(Number(port), host, 100);
    // The same keep-alive connection, after the flood: still open, and answered again.
    agent.socket.write(request);
    while (answers().length < 2 && !agent.socket.destroyed) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(answers()).toEqual(['HTTP/1.1 200', 'HTTP/1.1 200']);
    agent.socket.destroy();
    for (const client of slow) client.socket.destroy();
  });

  it('cuts off headers sent byte by byte with 408', async () => {
    const { port } = new URL(server.url);
    const client = await rawClient(Number(port), '127.0.0.3');
    const head = 'POST /graphql HTTP/1.1\r\nHost: x\r\nX-Slow: ' + 'a'.repeat(200);
    let sent = 0;
    const timer = setInterval(() => { if (!client.socket.destroyed && sent < head.length) client.socket.write(head[sent++]!); }, 50);
    await client.closed;
    clearInterval(timer);
    expect(statusOf(client)).toBe('408');
    expect(sent).toBeLessThan(head.length);
  });
});

describe('with TASKBASE_TOKENS set', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      env: {
        TASKBASE_TOKENS: 'agent-token,hook-token,reader-token:read', TASKBASE_HEADERS_TIMEOUT_MS: '2000', TASKBASE_BODY_TIMEOUT_MS: '4000',
        TASKBASE_MAX_CONNECTIONS_PER_CLIENT: '20', TASKBASE_MAX_REQUESTS_PER_TOKEN: '3',
      },
    });
  });
  afterAll(async () => { await server?.close(); });

  it('keeps a token\'s requests through a flood of anonymous slow bodies from the same address', async () => {
    const { port, host } = new URL(server.url);
    const own = await flood(Number(port), host, 2, 'agent-token');
    const anonymous = await flood(Number(port), host, 200);
    const probe = await query(server.url, '127.0.0.1', 'hook-token');
    expect(probe.status).toBe(200);
    expect(JSON.parse(probe.body)).toEqual({ data: { reminderSettings: { enabled: true } } });
    // The token's own slow bodies were never closed to make room: they end with the body timeout, not 429.
    await Promise.all([...own, ...anonymous].map((client) => client.closed));
    expect(own.map(statusOf)).toEqual(['408', '408']);
    // The anonymous ones were refused (401 as soon as their headers were in) or closed to make room (429), never served.
    expect(anonymous.map(statusOf).every((s) => s === '401' || s === '429' || s === '408')).toBe(true);
  });

  it('lets one token hold at most its cap of requests in progress, refusing the next with 429 before it runs, while other tokens are answered', async () => {
    // Three requests of the token whose bodies are in, held in progress: the service they call waits for the test.
    const reminders = server.app.services.reminders;
    const settings = reminders.settings.bind(reminders);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    let started = 0;
    reminders.settings = async () => { started += 1; await gate; return settings(); };
    try {
      const held = [1, 2, 3].map((n) => query(server.url, '127.0.0.1', 'reader-token', `{ held${n}: reminderSettings { enabled } }`));
      while (started < 3) await new Promise((resolve) => setTimeout(resolve, 20));
      const refused = await query(server.url, '127.0.0.1', 'reader-token', '{ __typename }');
      expect(refused.status).toBe(429);
      const error = JSON.parse(refused.body).errors[0];
      expect(error.extensions.code).toBe('TOO_LARGE');
      expect(error.message).toContain('TASKBASE_MAX_REQUESTS_PER_TOKEN');
      expect((await query(server.url, '127.0.0.1', 'agent-token', '{ __typename }')).status).toBe(200);
      release();
      expect((await Promise.all(held)).map((answer) => answer.status)).toEqual([200, 200, 200]);
    } finally {
      release();
      reminders.settings = settings;
    }
    // Once its requests are done, the token is answered again.
    expect((await query(server.url, '127.0.0.1', 'reader-token')).status).toBe(200);
  });

  it('counts a request against its token only once its body is in: slow bodies past the cap leave the token answered, and each is cut off with 408', async () => {
    const { port, host } = new URL(server.url);
    // Twice the cap of slow bodies with one token, from other addresses than the probe's (each address holds at most 20).
    const slow: RawClient[] = [];
    for (let i = 0; i < 6; i += 1) {
      const client = await rawClient(Number(port), `127.0.0.${40 + i}`);
      dripBody(client, host, 'reader-token');
      slow.push(client);
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    const probe = await query(server.url, '127.0.0.1', 'reader-token');
    expect(probe.status).toBe(200);
    expect(JSON.parse(probe.body)).toEqual({ data: { reminderSettings: { enabled: true } } });
    await Promise.all(slow.map((client) => client.closed));
    expect(slow.map(statusOf)).toEqual(['408', '408', '408', '408', '408', '408']);
    const cutOff = JSON.parse(slow[0].received().split('\r\n\r\n')[1]).errors[0];
    expect(cutOff.message).toContain('TASKBASE_BODY_TIMEOUT_MS');
    expect(cutOff.extensions.code).toBe('BAD_REQUEST');
  });
});

describe('the global connection cap', () => {
  let server: TestServer;
  beforeAll(async () => { server = await startTestServer({ env: { TASKBASE_MAX_CONNECTIONS: '5' } }); });
  afterAll(async () => { await server?.close(); });

  it('closes the oldest connection that proved nothing to serve a new one', async () => {
    const { port } = new URL(server.url);
    const held = await Promise.all(Array.from({ length: 5 }, (_, i) => rawClient(Number(port), `127.0.0.${10 + i}`)));
    while ((await openConnections(server)) < 5) await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await query(server.url, '127.0.0.20')).status).toBe(200);
    await held[0].closed;
    expect(statusOf(held[0])).toBe('429');
    expect(held[0].received()).toContain('TASKBASE_MAX_CONNECTIONS');
    expect(held.slice(1).every((client) => !client.socket.destroyed && client.received() === '')).toBe(true);
    for (const client of held) client.socket.destroy();
  });

  it('closes a new connection at once when every held one is proven', async () => {
    const { port } = new URL(server.url);
    // Five keep-alive connections, each proven by a complete answered request (auth is off).
    const agent = new http.Agent({ keepAlive: true, maxSockets: 5 });
    const body = JSON.stringify({ query: '{ reminderSettings { enabled } }' });
    const ask = () => new Promise<number>((resolve, reject) => {
      http.request(server.url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
        res.resume().on('end', () => resolve(res.statusCode ?? 0));
      }).on('error', reject).end(body);
    });
    expect(await Promise.all(Array.from({ length: 5 }, ask))).toEqual([200, 200, 200, 200, 200]);
    while ((await openConnections(server)) < 5) await new Promise((resolve) => setTimeout(resolve, 20));
    const extra = await rawClient(Number(port), '127.0.0.21');
    await extra.closed;
    expect(extra.received()).toBe('');
    agent.destroy();
    while ((await openConnections(server)) > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await query(server.url, '127.0.0.21')).status).toBe(200);
  });
});
