/** Bearer tokens (TASKBASE_TOKENS): 401 without a known one, read-only tokens may not change anything. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { databaseState } from '../fixtures/nothing-recorded.js';

let server: TestServer;
beforeAll(async () => { server = await startTestServer({ env: { TASKBASE_TOKENS: 'writer-secret, reader-secret:read' } }); });
afterAll(async () => { await server?.close(); });

const CREATE_AUTH_NOTE = 'mutation { createNote(input: { title: "Auth", body: "b", domain: "auth/notes" }) { id } }';
const READ = '{ memories(domain: "auth") { totalCount } }';
const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

describe('with TASKBASE_TOKENS set', () => {
  it('answers 401 UNAUTHENTICATED without a token, or with an unknown one', async () => {
    for (const options of [{}, bearer('guess'), bearer('reader-secret:read'), { headers: { authorization: 'Basic d3JpdGVyLXNlY3JldA==' } }]) {
      const result = await server.gql(READ, {}, options);
      expect(result.status).toBe(401);
      expect(result.errors?.[0].extensions?.code).toBe('UNAUTHENTICATED');
    }
  });

  it('lets a write token read and write', async () => {
    const created = await server.gql(CREATE_AUTH_NOTE, {}, bearer('writer-secret'));
    expect(created.errors).toBeUndefined();
    const read = await server.gql(READ, {}, bearer('writer-secret'));
    expect(read.data?.memories.totalCount).toBeGreaterThan(0);
  });

  it('lets a read token read, and refuses its mutations with 403 FORBIDDEN, recording nothing', async () => {
    expect((await server.gql(READ, {}, bearer('reader-secret'))).status).toBe(200);
    const before = await databaseState(server);
    const refused = await server.gql(CREATE_AUTH_NOTE, {}, bearer('reader-secret'));
    expect(refused.status).toBe(403);
    expect(refused.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    expect(await databaseState(server)).toEqual(before);
  });

  it('lets a read token read with x-session-id without recording anything on the session', async () => {
    const session = (await server.gql('mutation { startSession { id } }', {}, bearer('writer-secret'))).data?.startSession.id;
    const before = await databaseState(server);
    const read = await server.gql('{ memories(domain: "auth/read") { totalCount } }', {}, { ...bearer('reader-secret'), session });
    expect(read.errors).toBeUndefined();
    expect(await databaseState(server)).toEqual(before);
  });

  it('keeps /healthz open', async () => {
    expect((await fetch(server.url.replace('/graphql', '/healthz'))).status).toBe(200);
  });

  it('the reminder job reaches a server with auth through TASKBASE_TOKEN', async () => {
    const session = (await server.gql('mutation { startSession { id } }', {}, bearer('writer-secret'))).data?.startSession.id;
    const run = (token?: string) =>
      promisify(execFile)(process.execPath, ['dist/src/cli.js', 'remind', '--session', session, '--json', '--url', server.url], {
        env: { ...process.env, TASKBASE_TOKEN: token ?? '' },
      });
    expect(JSON.parse((await run('writer-secret')).stdout)).toBeNull();
    await expect(run()).rejects.toMatchObject({ stderr: expect.stringContaining('Authentication is on') });
  });
});

describe('bearer-only auth, as MCP clients meet it', () => {
  const base = () => server.app.server.url;

  it('answers 401 with a Bearer challenge in the taskbase realm and a body that says how to send the token', async () => {
    for (const path of ['/graphql', '/mcp']) {
      const response = await fetch(`${base()}${path}`, {
        method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"query":"{ access }"}',
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="taskbase"');
      expect(response.headers.get('content-type')).toMatch(/application\/json/);
      const body: any = await response.json();
      // /graphql answers in the GraphQL shape, /mcp in JSON-RPC's, with the same words.
      const [message, code] = path === '/mcp' ? [body.error.message, body.error.data.code] : [body.errors[0].message, body.errors[0].extensions.code];
      expect(code).toBe('UNAUTHENTICATED');
      expect(message).toContain('Authorization: Bearer <token>');
    }
  });

  const PROBES: [method: string, path: string][] = [
    ['GET', '/.well-known/oauth-authorization-server'],
    ['GET', '/.well-known/oauth-authorization-server/mcp'],
    ['GET', '/.well-known/oauth-protected-resource'],
    ['GET', '/.well-known/oauth-protected-resource/mcp'],
    ['GET', '/.well-known/openid-configuration'],
    ['POST', '/register'],
    ['GET', '/authorize?response_type=code&client_id=x'],
    ['POST', '/token'],
    ['GET', '/mcp/.well-known/oauth-protected-resource'],
    ['GET', '/favicon.ico'],
    ['GET', '/no/such/page'],
  ];

  it.each(PROBES)('answers %s %s with 404 JSON saying taskbase takes bearer tokens, not OAuth, even to a browser', async (method, path) => {
    for (const accept of ['application/json', 'text/html,application/xhtml+xml,*/*']) {
      const response = await fetch(`${base()}${path}`, {
        method, headers: { accept, 'content-type': 'application/json' }, body: method === 'POST' ? '{"client_name":"inspector"}' : undefined,
      });
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toMatch(/application\/json/);
      const body: any = await response.json();
      expect(body.errors[0].extensions.code).toBe('NOT_FOUND');
      expect(body.errors[0].message).toContain('bearer tokens, not OAuth');
      expect(body.errors[0].message).toContain('Authorization: Bearer <token>');
    }
  });
});

describe('a TASKBASE_TOKENS that names no usable token', () => {
  it.each([':read', 'has space', 'same,same:read'])('%j stops the server from starting, rather than leaving it open', async (tokens) => {
    await expect(startTestServer({ env: { TASKBASE_TOKENS: tokens } })).rejects.toThrow(/TASKBASE_TOKENS/);
  });
});
