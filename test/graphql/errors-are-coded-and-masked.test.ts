/**
 * Malformed requests and malformed input are refused with a code that says
 * what to send instead, the same on SQLite and PostgreSQL; anything
 * unexpected is masked: INTERNAL_SERVER_ERROR, a generic message and an
 * errorId, never the engine's or the driver's words, SQL or a stack.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { ADD_COMMENT, CREATE_NOTE, CREATE_TASK, SEARCH, UPDATE_ITEM } from '../fixtures/documents.js';
import { databaseState, refusedAndNothingRecorded } from '../fixtures/nothing-recorded.js';
import { createTask } from '../fixtures/tasks.js';

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

const cursor = (key: unknown) => Buffer.from(JSON.stringify(key)).toString('base64url');
const PROBE = '{ reminderSettings { enabled } }';

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

describe('U+0000 in text', () => {
  it('is refused with BAD_USER_INPUT, saying to remove it, and records nothing (labels, free text, nested inputs)', async () => {
    const { task, items } = await createTask(server, ['Clean']);
    const cases: [string, Record<string, unknown>][] = [
      [CREATE_NOTE, { input: { title: 'Nul\u0000title', body: 'b', domain: 'codes/nul' } }],
      [CREATE_TASK, { input: { title: 'T', goal: 'goal with \u0000 inside', domain: 'codes/nul', items: ['A'] } }],
      [CREATE_TASK, { input: { title: 'T', goal: 'g', domain: 'codes/nul', items: ['A', 'B\u0000'] } }],
      [ADD_COMMENT, { input: { taskId: task.id, body: '\u0000' } }],
      [UPDATE_ITEM, { input: { id: items[0].id, text: 'Renamed\u0000' } }],
    ];
    for (const [query, variables] of cases) {
      const message = await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', query, variables);
      expect(message).toContain('Remove the NUL character');
    }
    // Written as an escape in the document itself, too.
    const message = await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', 'mutation { createNote(input: { title: "a\\u0000b", body: "b", domain: "codes/nul" }) { id } }');
    expect(message).toContain('title');
  });
});

describe('a hand-made cursor', () => {
  it('of search with a rank that is not a whole number, or of the wrong shape, is BAD_USER_INPUT', async () => {
    await server.ok(CREATE_NOTE, { input: { title: 'Findable cursor note', body: 'b', domain: 'codes/cursor' } });
    for (const after of [cursor([0.5, 1]), cursor(['0', 1]), cursor([0]), cursor([0, 1, 2]), cursor({ rank: 0 }), 'not base64 at all', 'x'.repeat(500)]) {
      const refused = await server.refused(SEARCH, { query: 'findable', after });
      expect(refused.code, after).toBe('BAD_USER_INPUT');
      expect(refused.message).toContain('endCursor');
    }
    // A real cursor pages on.
    const first = await server.ok(SEARCH, { query: 'findable', first: 1 });
    const next = await server.ok(SEARCH, { query: 'findable', after: first.search.pageInfo.endCursor });
    expect(next.search.nodes).toEqual([]);
  });

  it('of a row list with a fraction, a string or a number past the id range is BAD_USER_INPUT', async () => {
    const { task } = await createTask(server, ['Paged']);
    for (const after of [cursor([1.5]), cursor(['1']), cursor([2 ** 40]), cursor([-1])]) {
      const refused = await server.refused('query($id: ID!, $after: String) { task(id: $id) { history(after: $after) { totalCount } } }', { id: task.id, after });
      expect(refused.code, after).toBe('BAD_USER_INPUT');
    }
  });
});

describe('requests the API does not serve', () => {
  it('an automatic persisted query (a wrong hash, or a hash alone) is PERSISTED_QUERY_NOT_SUPPORTED', async () => {
    const wrong = await post(server, JSON.stringify({ query: PROBE, extensions: { persistedQuery: { version: 1, sha256Hash: 'abc' } } }));
    expect(wrong.errors[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_SUPPORTED');
    const alone = await post(server, JSON.stringify({ extensions: { persistedQuery: { version: 1, sha256Hash: 'a'.repeat(64) } } }));
    expect(alone.errors[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_SUPPORTED');
  });

  it('a subscription sent over HTTP POST is BAD_REQUEST, saying to send a query or mutation', async () => {
    const answer = await post(server, JSON.stringify({ query: 'subscription { reminderSettingsChanged { enabled } }' }));
    expect(answer.errors[0]?.extensions?.code).toBe('BAD_REQUEST');
    expect(answer.errors[0]?.message).toContain('query or a mutation');
  });

  it('a list literal nested thousands deep is TOO_LARGE, without the engine\'s words', async () => {
    const deep = `${'['.repeat(5000)}"a"${']'.repeat(5000)}`;
    for (const query of [`{ memories(domain: "a", after: ${deep}) { totalCount } }`, `mutation { setPlan(steps: ${deep}) { message } }`]) {
      const answer = await post(server, JSON.stringify({ query }));
      expect(answer.errors[0]?.extensions?.code).toBe('TOO_LARGE');
      expect(answer.errors[0]?.message).not.toMatch(/call stack|RangeError/);
      expect(answer.errors[0]?.message).toContain('variables');
    }
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
