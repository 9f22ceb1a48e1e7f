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
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.js';
import { databaseState } from './fixtures/nothing-recorded.js';

const onPostgres = Boolean(process.env.TEST_POSTGRES_URL);
const CREATE_NOTE = 'mutation { createNote(input: { title: "During the outage", body: "b", domain: "outage/notes" }) { id } }';
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
    await server.ok(CREATE_NOTE.replace('During the outage', 'Before the outage'));
    const before = await databaseState(server);
    const bringBack = await takeDatabaseAway();
    try {
      expectUnavailable(await server.gql(CREATE_NOTE));
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
    expect((await server.gql(CREATE_NOTE)).data?.createNote.id).toBeTruthy();
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
