/** The HTTP layer around GraphQL: health, body limit, malformed bodies, headers. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';

let server: TestServer;
beforeAll(async () => { server = await startTestServer({ env: { TASKBASE_BODY_LIMIT: '4096' } }); });
afterAll(async () => { await server?.close(); });

const post = (body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  fetch(server.url, { method: 'POST', headers, body });

describe('GET /healthz', () => {
  it('answers 200 with the database kind once the database is open', async () => {
    const response = await fetch(server.url.replace('/graphql', '/healthz'));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok', database: server.app.services.db.kind });
  });
});

describe('POST /graphql', () => {
  it('refuses a body over the limit with 413 and a coded JSON error, recording nothing', async () => {
    const labels = Array.from({ length: 100 }, (_, i) => `A fairly long checklist label number ${i}`);
    const query = 'mutation($input: CreateTaskInput!) { createTask(input: $input) { task { id } } }';
    const response = await post(JSON.stringify({ query, variables: { input: { title: 'Big', goal: 'g', domain: 'http/limit', items: labels } } }));
    expect(response.status).toBe(413);
    const body = (await response.json()) as { errors: { message: string; extensions: { code: string } }[] };
    expect(body.errors[0].extensions.code).toBe('TOO_LARGE');
    expect(body.errors[0].message).toContain('4096 bytes');
    const listed = await server.ok('{ memories(domain: "http") { totalCount } }');
    expect(listed.memories.totalCount).toBe(0);
  });

  it('answers malformed JSON with 400 and a coded error, without a stack', async () => {
    const response = await post('{"query": ');
    expect(response.status).toBe(400);
    const text = await response.text();
    expect(JSON.parse(text).errors[0].extensions.code).toBe('BAD_REQUEST');
    expect(text).not.toMatch(/\bat \w+ \(|node_modules|SyntaxError/);
  });

  it('does not advertise the framework', async () => {
    const response = await post(JSON.stringify({ query: '{ reminderSettings { enabled } }' }));
    expect(response.status).toBe(200);
    expect(response.headers.get('x-powered-by')).toBeNull();
  });
});
