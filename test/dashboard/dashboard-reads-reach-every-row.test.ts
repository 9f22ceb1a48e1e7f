/** The reads the dashboard pages with: a task's history newest first, and every session page by page (working or finished, or by id prefix). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { CREATE_TASK, FINISH_SESSION, UPDATE_ITEM, WRITE_TODOS } from '../fixtures/documents.js';

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

const SESSIONS = `query($first: Int, $after: String, $finished: Boolean, $idPrefix: String) {
  sessions(first: $first, after: $after, finished: $finished, idPrefix: $idPrefix) { totalCount pageInfo { hasNextPage endCursor } nodes { id finishedAt createdAt lastActiveAt } } }`;

describe('Task.history(newestFirst)', () => {
  it('pages the same changes in the other order, newest first', async () => {
    const made = await server.ok(CREATE_TASK, { input: { title: 'History both ways', goal: 'g', domain: 'reads/history', items: ['One', 'Two'] } });
    for (const state of ['IN_PROGRESS', 'DONE', 'BLOCKED', 'FAILED']) await server.ok(UPDATE_ITEM, { input: { id: made.createTask.items[0].id, state, comment: state } });
    const read = async (newestFirst: boolean) => {
      const ids: string[] = [];
      let after: string | null = null;
      for (;;) {
        const page: any = (await server.ok('query($id: ID!, $after: String, $n: Boolean) { task(id: $id) { history(first: 2, after: $after, newestFirst: $n) { totalCount pageInfo { hasNextPage endCursor } nodes { id action } } } }', { id: made.createTask.task.id, after, n: newestFirst })).task.history;
        expect(page.totalCount).toBe(5);
        ids.push(...page.nodes.map((node: { id: string }) => node.id));
        if (!page.pageInfo.hasNextPage) return ids;
        after = page.pageInfo.endCursor;
      }
    };
    const oldest = await read(false);
    expect(oldest).toHaveLength(5);
    expect(await read(true)).toEqual([...oldest].reverse());
  });
});

describe('Query.sessions', () => {
  it('reaches every top-level session newest first, filters by finished, and finds by id prefix', async () => {
    const made = await server.ok(`mutation { ${Array.from({ length: 7 }, (_, i) => `s${i}: startSession { id }`).join(' ')} }`);
    const ids = Object.values(made).map((session: any) => session.id as string);
    await server.ok('mutation($input: StartSessionInput) { startSession(input: $input) { id } }', { input: { parentId: ids[0] } });
    for (const id of ids.slice(0, 2)) {
      await server.ok(WRITE_TODOS, { todos: [{ content: 'Only step', status: 'DONE' }] }, { session: id });
      await server.ok(FINISH_SESSION, {}, { session: id });
    }
    const seen: any[] = [];
    let after: string | null = null;
    for (;;) {
      const page: any = (await server.ok(SESSIONS, { first: 3, after })).sessions;
      expect(page.totalCount).toBe(7);
      seen.push(...page.nodes);
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(seen.map((session) => session.id).sort()).toEqual([...ids].sort());
    const order = seen.map((session) => `${session.createdAt}|${session.id}`);
    expect(order).toEqual([...order].sort().reverse());
    const finished = (await server.ok(SESSIONS, { finished: true })).sessions;
    expect(finished.nodes.map((session: any) => session.id).sort()).toEqual(ids.slice(0, 2).sort());
    expect(finished.nodes[0].lastActiveAt >= finished.nodes[0].createdAt).toBe(true);
    expect((await server.ok(SESSIONS, { finished: false })).sessions.totalCount).toBe(5);
    const found = (await server.ok(SESSIONS, { idPrefix: ids[3].slice(0, 13) })).sessions;
    expect(found.nodes.map((session: any) => session.id)).toEqual([ids[3]]);
    expect((await server.ok(SESSIONS, { idPrefix: '%' })).sessions.totalCount, 'a LIKE wildcard matches nothing of its own').toBe(7);
  });

  it('refuses a cursor of another list before reading anything', async () => {
    const refusal = await server.refused(SESSIONS, { after: Buffer.from('[5]').toString('base64url') });
    expect(refusal.code).toBe('BAD_USER_INPUT');
    expect(refusal.message).toMatch(/after is not a cursor of this list/);
  });
});
