/**
 * Malformed requests are refused with a code; anything unexpected is masked:
 * INTERNAL_SERVER_ERROR, a generic message and an errorId, never driver text,
 * SQL or a stack.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { UPDATE_ITEM } from '../fixtures/documents.js';
import { databaseState } from '../fixtures/nothing-recorded.js';
import { createTask } from '../fixtures/tasks.js';

/** Sends a raw body and returns the status, the raw text and the parsed errors. */
async function post(server: TestServer, body: string) {
  const response = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const text = await response.text();
  return { status: response.status, text, errors: (JSON.parse(text).errors ?? []) as { message: string; extensions?: Record<string, unknown> }[] };
}

/** Nothing in a response body may reveal the driver, the SQL or where in the code it failed. */
function expectNothingLeaked(text: string): void {
  expect(text).not.toMatch(/SQLITE|sqlite3|better-sqlite|QueryFailedError|TypeORM|SELECT |INSERT |UPDATE "|no such table/i);
  expect(text).not.toMatch(/\bat [\w.<>]+ \(|\n\s+at |node_modules|\.ts:\d+|\.js:\d+/);
  expect(text).not.toMatch(/stacktrace/);
}

describe('malformed requests', () => {
  let server: TestServer;
  beforeAll(async () => { server = await startTestServer(); });
  afterAll(async () => { await server?.close(); });

  it('refuses an enum typo in variables with BAD_USER_INPUT, suggesting the right value, and records nothing', async () => {
    const { items } = await createTask(server, ['A']);
    const before = await databaseState(server);
    const result = await post(server, JSON.stringify({ query: UPDATE_ITEM, variables: { input: { id: items[0].id, state: 'Done' } } }));
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0].extensions?.code).toBe('BAD_USER_INPUT');
    expect(result.errors[0].message).toContain('"Done"');
    expect(result.errors[0].message).toContain('DONE');
    expectNothingLeaked(result.text);
    expect(await databaseState(server)).toEqual(before);
  });

  it('refuses an enum typo written in the query with GRAPHQL_VALIDATION_FAILED', async () => {
    const { items } = await createTask(server, ['A']);
    const result = await post(server, JSON.stringify({ query: `mutation { updateItem(input: { id: "${items[0].id}", state: Done }) { id } }` }));
    expect(result.errors[0].extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(result.errors[0].message).toContain('Done');
    expectNothingLeaked(result.text);
  });

  it('refuses an unknown field, a syntax error and a missing required input with their codes', async () => {
    const unknown = await post(server, JSON.stringify({ query: '{ task(id: "1") { id nope } }' }));
    expect(unknown.errors[0].extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(unknown.errors[0].message).toContain('nope');
    const syntax = await post(server, JSON.stringify({ query: '{ task(id: "1") { id ' }));
    expect(syntax.errors[0].extensions?.code).toBe('GRAPHQL_PARSE_FAILED');
    const missing = await post(server, JSON.stringify({ query: UPDATE_ITEM, variables: {} }));
    expect(missing.errors[0].extensions?.code).toBe('BAD_USER_INPUT');
    for (const result of [unknown, syntax, missing]) expectNothingLeaked(result.text);
  });

  it('answers a body that is not JSON with BAD_REQUEST and no stack', async () => {
    const result = await post(server, '{"query": ');
    expect(result.status).toBe(400);
    expect(result.errors[0].extensions?.code).toBe('BAD_REQUEST');
    expectNothingLeaked(result.text);
  });
});

describe('unexpected failures', () => {
  it('masks a driver error (a table gone under the server) as INTERNAL_SERVER_ERROR with an errorId', async () => {
    const server = await startTestServer();
    try {
      const { task } = await createTask(server, ['A']);
      // Break the database behind the server's back, as a disk or operator fault would.
      await server.app.services.db.transaction((manager) => manager.query('DROP TABLE "task_events"'));

      const mutation = await post(server, JSON.stringify({
        query: 'mutation($input: CreateTaskInput!) { createTask(input: $input) { task { id } } }',
        variables: { input: { title: 'T', goal: 'G', items: ['X'], domain: 'ops/infra' } },
      }));
      const query = await post(server, JSON.stringify({ query: `{ task(id: "${task.id}") { id history { totalCount } } }` }));
      const errorIds = new Set<unknown>();
      for (const result of [mutation, query]) {
        expect(result.errors).toHaveLength(1);
        const [error] = result.errors;
        expect(error.extensions?.code).toBe('INTERNAL_SERVER_ERROR');
        expect(error.extensions?.errorId).toMatch(/^[0-9a-f-]{36}$/);
        expect(error.message).toContain(String(error.extensions?.errorId));
        expect(error.message).toMatch(/^Internal server error/);
        expect(Object.keys(error.extensions ?? {}).sort()).toEqual(['code', 'errorId']);
        expectNothingLeaked(result.text);
        errorIds.add(error.extensions?.errorId);
      }
      expect(errorIds.size).toBe(2);
      // The failed createTask recorded nothing: its task row rolled back with the missing history row.
      const [{ n }] = await server.app.services.db.reader.query('SELECT count(*) AS n FROM "memories"');
      expect(Number(n)).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('masks a closed database the same way', async () => {
    const server = await startTestServer();
    try {
      const { task, items } = await createTask(server, ['A']);
      await server.app.services.db.close();
      const mutation = await post(server, JSON.stringify({ query: UPDATE_ITEM, variables: { input: { id: items[0].id, state: 'DONE' } } }));
      const query = await post(server, JSON.stringify({ query: `{ task(id: "${task.id}") { id title } }` }));
      for (const result of [mutation, query]) {
        expect(result.errors?.[0]?.extensions?.code).toBe('INTERNAL_SERVER_ERROR');
        expect(result.errors[0].extensions?.errorId).toBeTruthy();
        expectNothingLeaked(result.text);
      }
    } finally {
      await server.close();
    }
  });
});
