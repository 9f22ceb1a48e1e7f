/** GraphQL answers over ~1 kB are compressed when the client accepts it; small ones and /mcp's event streams are left as they are. */
import http from 'node:http';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';

let server: TestServer;
let taskId: string;
beforeAll(async () => {
  server = await startTestServer();
  const items = Array.from({ length: 40 }, (_, i) => `Compressible checklist step number ${i + 1}`);
  const created = await server.ok<{ createTask: { task: { id: string } } }>(
    'mutation($input: CreateTaskInput!) { createTask(input: $input) { task { id } } }',
    { input: { title: 'Big answer', goal: 'Many items.', domain: 'http/compression', items } },
  );
  taskId = created.createTask.task.id;
});
afterAll(async () => { await server?.close(); });

interface Answer { status: number; headers: http.IncomingHttpHeaders; body: Buffer }

/** One request over node:http, which (unlike fetch) hands back the bytes as sent, still encoded. */
function request(url: string, { method = 'POST', headers = {}, body }: { method?: string; headers?: Record<string, string>; body?: string }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const TASK = 'query($id: ID!) { task(id: $id) { id title items(first: 50) { totalCount nodes { id number text state } } } }';
const graphql = (query: string, variables: Record<string, unknown>, acceptEncoding?: string) =>
  request(server.url, { headers: acceptEncoding ? { 'accept-encoding': acceptEncoding } : {}, body: JSON.stringify({ query, variables }) });

describe('GraphQL answers over HTTP', () => {
  it('sends a big answer brotli-compressed to a client that accepts br, decoding to the same JSON', async () => {
    const plain = await graphql(TASK, { id: taskId });
    expect(plain.headers['content-encoding']).toBeUndefined();
    const answer = JSON.parse(plain.body.toString('utf8'));
    expect(answer.data.task.items.totalCount).toBe(40);
    expect(plain.body.length).toBeGreaterThan(1024);

    const compressed = await graphql(TASK, { id: taskId }, 'gzip, deflate, br');
    expect(compressed.status).toBe(200);
    expect(compressed.headers['content-encoding']).toBe('br');
    expect(compressed.headers.vary).toMatch(/accept-encoding/i);
    expect(Number(compressed.headers['content-length'])).toBe(compressed.body.length);
    expect(compressed.body.length).toBeLessThan(plain.body.length / 2);
    expect(JSON.parse(zlib.brotliDecompressSync(compressed.body).toString('utf8'))).toEqual(answer);
  });

  it('sends gzip to a client that accepts only gzip, and nothing compressed to one that refuses every coding', async () => {
    const plain = JSON.parse((await graphql(TASK, { id: taskId })).body.toString('utf8'));
    const gzipped = await graphql(TASK, { id: taskId }, 'gzip');
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(zlib.gunzipSync(gzipped.body).toString('utf8'))).toEqual(plain);

    const refused = await graphql(TASK, { id: taskId }, 'br;q=0, gzip;q=0, identity');
    expect(refused.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(refused.body.toString('utf8'))).toEqual(plain);
  });

  it('leaves a small answer as it is, whatever the client accepts', async () => {
    const small = await graphql('{ __typename }', {}, 'gzip, br');
    expect(small.status).toBe(200);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(small.body.toString('utf8'))).toEqual({ data: { __typename: 'Query' } });
  });

  it('compresses a GET query too (served by the express route)', async () => {
    const url = `${server.url}?query=${encodeURIComponent(TASK)}&variables=${encodeURIComponent(JSON.stringify({ id: taskId }))}`;
    const got = await request(url, { method: 'GET', headers: { 'accept-encoding': 'gzip', 'apollo-require-preflight': '1' } });
    expect(got.status).toBe(200);
    expect(got.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(zlib.gunzipSync(got.body).toString('utf8')).data.task.items.totalCount).toBe(40);
  });
});

describe('/mcp event streams', () => {
  it('are sent as they are, event by event, to a client that accepts gzip', async () => {
    const origin = server.url.replace('/graphql', '');
    const headers = { accept: 'application/json, text/event-stream', 'accept-encoding': 'gzip, br' };
    const init = await request(`${origin}/mcp`, {
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'gzip', version: '1' } } }),
    });
    expect(init.status).toBe(200);
    expect(init.headers['content-type']).toMatch(/text\/event-stream/);
    expect(init.headers['content-encoding']).toBeUndefined();
    expect(init.body.toString('utf8')).toMatch(/^event: message\ndata: \{"result":\{"protocolVersion"/m);
    const session = init.headers['mcp-session-id'] as string;

    // The standalone stream stays open: its headers (and no encoding) arrive while nothing has ended it.
    const stream = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const req = http.request(`${origin}/mcp`, { method: 'GET', headers: { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' } }, resolve);
      req.on('error', reject);
      req.end();
    });
    expect(stream.statusCode).toBe(200);
    expect(stream.headers['content-type']).toMatch(/text\/event-stream/);
    expect(stream.headers['content-encoding']).toBeUndefined();
    expect(stream.complete).toBe(false);
    stream.destroy();
  });
});
