/**
 * A mutation either records nothing and says so, or records and answers:
 * what its answer asks for is checked before it runs, and in a request of
 * several mutations a refused one nulls only itself, named by errors[].path.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { READ_HISTORY } from '../fixtures/documents.js';
import { refusedAndNothingRecorded } from '../fixtures/nothing-recorded.js';
import { createTask, readTask } from '../fixtures/tasks.js';

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

async function itemsCursor(taskId: string): Promise<string> {
  const page = await server.ok('query($id: ID!) { task(id: $id) { items(first: 1) { pageInfo { endCursor } } } }', { id: taskId });
  return page.task.items.pageInfo.endCursor;
}

describe("a mutation whose answer pages with a cursor", () => {
  it('of another task\'s list is refused before it runs, and records nothing', async () => {
    const other = await createTask(server, ['Elsewhere 1', 'Elsewhere 2']);
    const { items } = await createTask(server, ['Here']);
    const after = await itemsCursor(other.task.id);
    const message = await refusedAndNothingRecorded(
      server, 'BAD_USER_INPUT',
      'mutation($id: ID!, $after: String) { updateItem(input: { id: $id, state: DONE }) { task { items(after: $after) { totalCount } } } }',
      { id: items[0].id, after },
    );
    expect(message).toContain('Nothing was recorded');
    expect((await server.ok('query($id: ID!) { item(id: $id) { state } }', { id: items[0].id })).item.state).toBe('PENDING');
  });

  it('of another kind of list is refused in a query too, before any SQL sees it', async () => {
    const { task } = await createTask(server, ['Shaped']);
    const history = (await server.ok(READ_HISTORY, { id: task.id, first: 1 })).task.history.pageInfo.endCursor;
    const refused = await server.refused('query($id: ID!, $after: String) { task(id: $id) { items(after: $after) { totalCount } } }', { id: task.id, after: history });
    expect(refused.code).toBe('BAD_USER_INPUT');
    // The cursor of its own list pages on.
    const own = await server.ok('query($id: ID!, $after: String) { task(id: $id) { history(after: $after) { totalCount } } }', { id: task.id, after: history });
    expect(own.task.history.totalCount).toBe(1);
  });
});

describe('two mutations in one request', () => {
  it('when the second is refused, answer the first (recorded) and name the second in errors[].path', async () => {
    const { task, items } = await createTask(server, ['First change', 'Second change']);
    const result = await server.gql(
      `mutation($a: ID!) {
        done: updateItem(input: { id: $a, state: DONE }) { id state }
        missing: updateItem(input: { id: "2147483000", state: DONE }) { id state }
      }`,
      { a: items[0].id },
    );
    expect(result.data).toEqual({ done: { id: items[0].id, state: 'DONE' }, missing: null });
    expect(result.errors).toHaveLength(1);
    expect(result.errors![0].path).toEqual(['missing']);
    expect(result.errors![0].extensions?.code).toBe('NOT_FOUND');
    const after = await readTask(server, task.id);
    expect(after.items.nodes.map((item) => item.state)).toEqual(['DONE', 'PENDING']);
  });
});
