/**
 * Malformed input is a coded error that says what to send instead, the same
 * on SQLite and PostgreSQL: never INTERNAL_SERVER_ERROR, never the engine's
 * or the driver's words.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { ADD_COMMENT, CREATE_NOTE, SEARCH, CREATE_TASK, UPDATE_ITEM } from '../fixtures/documents.js';
import { refusedAndNothingRecorded } from '../fixtures/nothing-recorded.js';
import { createTask } from '../fixtures/tasks.js';

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

const cursor = (key: unknown) => Buffer.from(JSON.stringify(key)).toString('base64url');

/** POSTs a raw body and returns the status and the first error. */
async function post(body: unknown): Promise<{ status: number; code: unknown; message: string }> {
  const response = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = (await response.json()) as { errors?: { message: string; extensions?: { code?: string } }[] };
  const [error] = json.errors ?? [];
  return { status: response.status, code: error?.extensions?.code, message: error?.message ?? '' };
}

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
    const wrong = await post({ query: PROBE, extensions: { persistedQuery: { version: 1, sha256Hash: 'abc' } } });
    expect(wrong.code).toBe('PERSISTED_QUERY_NOT_SUPPORTED');
    const alone = await post({ extensions: { persistedQuery: { version: 1, sha256Hash: 'a'.repeat(64) } } });
    expect(alone.code).toBe('PERSISTED_QUERY_NOT_SUPPORTED');
  });

  it('a subscription sent over HTTP POST is BAD_REQUEST, saying to send a query or mutation', async () => {
    const answer = await post({ query: 'subscription { reminderSettingsChanged { enabled } }' });
    expect(answer.code).toBe('BAD_REQUEST');
    expect(answer.message).toContain('query or a mutation');
  });

  it('a list literal nested thousands deep is TOO_LARGE, without the engine\'s words', async () => {
    const deep = `${'['.repeat(5000)}"a"${']'.repeat(5000)}`;
    for (const query of [`{ memories(domain: "a", after: ${deep}) { totalCount } }`, `mutation { setPlan(steps: ${deep}) { message } }`]) {
      const answer = await post({ query });
      expect(answer.code).toBe('TOO_LARGE');
      expect(answer.message).not.toMatch(/call stack|RangeError/);
      expect(answer.message).toContain('variables');
    }
  });
});

const PROBE = '{ reminderSettings { enabled } }';
