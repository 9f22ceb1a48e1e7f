/**
 * DNS rebinding and web pages on other origins: a request whose Host is not
 * this server's, or whose Origin is a page elsewhere, is refused with 403
 * FORBIDDEN on every HTTP path before anything runs, and records nothing.
 * Clients that send no Origin (curl, MCP clients, agents) and the dashboard
 * on its own origin are answered as before; TASKBASE_ALLOWED_HOSTS and
 * TASKBASE_ALLOWED_ORIGINS add names and origins.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { databaseState } from '../fixtures/nothing-recorded.js';

interface Answer { status: number; headers: http.IncomingHttpHeaders; body: string; json(): any }

/** One request with exactly these headers (fetch would not send a Host of our choosing). */
function send(url: string, method: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, agent: false, headers: { ...headers, ...(body ? { 'content-length': String(Buffer.byteLength(body)) } : {}) } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk) => { text += chunk; }).on('end', () => resolve({
        status: res.statusCode ?? 0, headers: res.headers, body: text, json: () => JSON.parse(text),
      }));
    });
    req.on('error', reject).end(body);
  });
}

const CREATE_NOTE_BODY = JSON.stringify({ query: 'mutation { createNote(input: { title: "Rebound", body: "b", domain: "rebinding/notes" }) { id } }' });
const READ = JSON.stringify({ query: '{ memories(domain: "rebinding") { totalCount } }' });
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0', id: 1, method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'rebinding-page', version: '1' } },
});
const JSON_POST = { 'content-type': 'application/json' };
const MCP_POST = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** Every path, as a page would send it. */
const PATHS: { name: string; method: string; path: string; headers: Record<string, string>; body?: string; rpc?: boolean }[] = [
  { name: 'a query on POST /graphql', method: 'POST', path: '/graphql', headers: JSON_POST, body: READ },
  { name: 'a mutation on POST /graphql', method: 'POST', path: '/graphql', headers: JSON_POST, body: CREATE_NOTE_BODY },
  { name: 'an MCP initialize on POST /mcp', method: 'POST', path: '/mcp', headers: MCP_POST, body: INITIALIZE, rpc: true },
  { name: 'GET /healthz', method: 'GET', path: '/healthz', headers: {} },
  { name: 'the dashboard at GET /', method: 'GET', path: '/', headers: { accept: 'text/html' } },
  { name: 'the help page at GET /graphql', method: 'GET', path: '/graphql', headers: { accept: 'text/html' } },
];

function expectRefused(answer: Answer, rpc: boolean | undefined, header: 'Host' | 'Origin') {
  expect(answer.status).toBe(403);
  expect(answer.headers['content-type']).toMatch(/application\/json/);
  expect(answer.headers['x-content-type-options']).toBe('nosniff');
  const body = answer.json();
  if (rpc) {
    expect(body).toMatchObject({ jsonrpc: '2.0', error: { code: -32000, data: { code: 'FORBIDDEN' } }, id: null });
    expect(body.error.message).toContain(header === 'Host' ? 'TASKBASE_ALLOWED_HOSTS' : 'TASKBASE_ALLOWED_ORIGINS');
  } else {
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0].extensions).toEqual({ code: 'FORBIDDEN' });
    expect(body.errors[0].message).toContain(header === 'Host' ? 'TASKBASE_ALLOWED_HOSTS' : 'TASKBASE_ALLOWED_ORIGINS');
  }
}

describe('on a server with the default policy', () => {
  let server: TestServer;
  let base: string;
  let port: string;
  beforeAll(async () => {
    server = await startTestServer();
    base = server.app.server.url;
    port = new URL(base).port;
  });
  afterAll(async () => { await server?.close(); });

  for (const route of PATHS) {
    it(`refuses ${route.name} under a foreign Host, recording nothing`, async () => {
      const before = await databaseState(server);
      const answer = await send(`${base}${route.path}`, route.method, { ...route.headers, host: `attacker.example:${port}` }, route.body);
      expectRefused(answer, route.rpc, 'Host');
      expect(answer.body).not.toMatch(/<!doctype|<html/i);
      expect(await databaseState(server)).toEqual(before);
    });

    it(`refuses ${route.name} from a page on another origin, recording nothing`, async () => {
      const before = await databaseState(server);
      const answer = await send(`${base}${route.path}`, route.method, { ...route.headers, origin: 'http://attacker.example' }, route.body);
      expectRefused(answer, route.rpc, 'Origin');
      expect(await databaseState(server)).toEqual(before);
    });
  }

  it('refuses a page with an opaque origin ("null": a sandboxed frame, a file) and a loopback page on another port', async () => {
    for (const origin of ['null', 'http://127.0.0.1:1', `http://localhost:${port}`]) {
      expectRefused(await send(`${base}/graphql`, 'POST', { ...JSON_POST, origin }, READ), false, 'Origin');
    }
  });

  it('answers clients that send no Origin, under every local name', async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) {
      const answer = await send(`${base}/graphql`, 'POST', { ...JSON_POST, host }, READ);
      expect(answer.status).toBe(200);
      expect(answer.json()).toEqual({ data: { memories: { totalCount: 0 } } });
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
    }
    expect((await send(`${base}/mcp`, 'POST', MCP_POST, INITIALIZE)).status).toBe(200);
    expect((await send(`${base}/healthz`, 'GET', {})).status).toBe(200);
  });

  it('answers the dashboard on its own origin, and records its write', async () => {
    const answer = await send(`${base}/graphql`, 'POST', { ...JSON_POST, origin: base }, CREATE_NOTE_BODY);
    expect(answer.status).toBe(200);
    expect(answer.json().data.createNote.id).toBeTruthy();
    expect((await send(`${base}/`, 'GET', { origin: base, accept: 'text/html' })).status).toBe(200);
  });
});

describe('with TASKBASE_ALLOWED_HOSTS and TASKBASE_ALLOWED_ORIGINS (behind a proxy)', () => {
  let server: TestServer;
  let base: string;
  beforeAll(async () => {
    server = await startTestServer({ env: { TASKBASE_ALLOWED_HOSTS: 'tasks.example.com', TASKBASE_ALLOWED_ORIGINS: 'https://ui.example.com' } });
    base = server.app.server.url;
  });
  afterAll(async () => { await server?.close(); });

  it('answers the public name, its own pages, and the configured UI origin', async () => {
    const publicName = { ...JSON_POST, host: 'tasks.example.com' };
    expect((await send(`${base}/graphql`, 'POST', publicName, READ)).status).toBe(200);
    expect((await send(`${base}/graphql`, 'POST', { ...publicName, origin: 'https://tasks.example.com' }, READ)).status).toBe(200);
    expect((await send(`${base}/graphql`, 'POST', { ...publicName, origin: 'https://ui.example.com' }, READ)).status).toBe(200);
    expect((await send(`${base}/mcp`, 'POST', { ...MCP_POST, host: 'tasks.example.com', origin: 'https://ui.example.com' }, INITIALIZE)).status).toBe(200);
  });

  it('still refuses other names and other origins', async () => {
    expectRefused(await send(`${base}/graphql`, 'POST', { ...JSON_POST, host: 'other.example.com' }, READ), false, 'Host');
    expectRefused(await send(`${base}/graphql`, 'POST', { ...JSON_POST, host: 'tasks.example.com', origin: 'https://other.example.com' }, READ), false, 'Origin');
  });
});
