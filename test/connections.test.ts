/**
 * One client cannot hold every connection: a flood of slow bodies from one
 * address is capped (the extras refused at once with 429) and each slow body
 * is cut off (408, closed), while a client at another address is answered.
 * Loopback only; every socket is bounded in count and closed by the server.
 */
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.js';

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
function dripBody(client: RawClient, host: string): void {
  client.socket.write(`POST /graphql HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`);
  const timer = setInterval(() => { if (!client.socket.destroyed) client.socket.write('{'); }, 200);
  void client.closed.then(() => clearInterval(timer));
}

/** One ordinary GraphQL request from `localAddress`: status and body. */
function query(url: string, localAddress: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ query: '{ reminderSettings { enabled } }' });
    const req = http.request(url, { method: 'POST', localAddress, agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk) => { text += chunk; }).on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject).end(body);
  });
}

const statusOf = (client: RawClient) => /^HTTP\/1\.1 (\d{3})/.exec(client.received())?.[1] ?? 'none';

describe('a slow-body flood from one address', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      env: { TASKBASE_HEADERS_TIMEOUT_MS: '2000', TASKBASE_BODY_TIMEOUT_MS: '4000', TASKBASE_MAX_CONNECTIONS_PER_CLIENT: '20' },
    });
  });
  afterAll(async () => { await server?.close(); });

  it('is capped per address and cut off, while another client is answered', async () => {
    const { port, host } = new URL(server.url);
    const flood: RawClient[] = [];
    for (let i = 0; i < 60; i += 1) flood.push(await rawClient(Number(port)));
    for (const client of flood) dripBody(client, host);

    // While the flood holds its 20 connections, a client at another loopback address is answered as usual...
    const other = await query(server.url, '127.0.0.2');
    expect(other.status).toBe(200);
    expect(JSON.parse(other.body)).toEqual({ data: { reminderSettings: { enabled: true } } });
    // ...and the flooding address itself gets no more: a coded 429 that says what to do.
    const same = await query(server.url, '127.0.0.1');
    expect(same.status).toBe(429);
    const refusal = JSON.parse(same.body).errors[0];
    expect(refusal.extensions.code).toBe('TOO_LARGE');
    expect(refusal.message).toContain('Reuse connections');

    // The server closes every flooding connection itself: the extras at once with 429, the slow bodies with 408.
    await Promise.all(flood.map((client) => client.closed));
    const statuses = flood.map(statusOf);
    expect(statuses.filter((s) => s === '429')).toHaveLength(40);
    expect(statuses.filter((s) => s === '408')).toHaveLength(20);

    // Once they are gone the address is welcome again.
    expect((await query(server.url, '127.0.0.1')).status).toBe(200);
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

describe('the global connection cap', () => {
  let server: TestServer;
  beforeAll(async () => { server = await startTestServer({ env: { TASKBASE_MAX_CONNECTIONS: '5' } }); });
  afterAll(async () => { await server?.close(); });

  it('closes a connection past it at once, and serves again when one is free', async () => {
    const { port } = new URL(server.url);
    const held = await Promise.all(Array.from({ length: 5 }, (_, i) => rawClient(Number(port), `127.0.0.${10 + i}`)));
    const count = () => new Promise<number>((resolve) => server.app.server.http.getConnections((_e, n) => resolve(n)));
    while ((await count()) < 5) await new Promise((resolve) => setTimeout(resolve, 20));
    const extra = await rawClient(Number(port), '127.0.0.20');
    await extra.closed;
    expect(extra.received()).toBe('');
    for (const client of held) client.socket.destroy();
    await Promise.all(held.map((client) => client.closed));
    while ((await count()) > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await query(server.url, '127.0.0.20')).status).toBe(200);
  });
});
