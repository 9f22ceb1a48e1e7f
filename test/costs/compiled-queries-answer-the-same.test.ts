/**
 * An operation runs on graphql-js the first time the server sees it and
 * compiled (graphql-jit) from the second time on: the answers, and the
 * refusals, are the same either way.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { ADD_TASK_NOTE, ADD_COMMENT, UPDATE_ITEM } from '../fixtures/documents.js';
import { brief } from '../fixtures/knowledge.js';
import { createTask } from '../fixtures/tasks.js';
import { FIRST_PAGE, TASK_OPENED } from '../../web/src/dashboard-documents.mjs';

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

describe('a query sent again', () => {
  it('answers the same the first time (graphql-js) and after (compiled), for the whole dashboard read', async () => {
    const { task, items } = await createTask(server, ['Read the spec', 'Write the parser', 'Run the suite'], { domain: 'jit/same' });
    await server.ok(ADD_TASK_NOTE, { input: { taskId: task.id, title: 'How', items: [items[1].id], brief: brief({ goal: `After [[#${items[0].id}]].`, dependsOn: [{ item: items[0].id, reason: 'needs it' }] }) } });
    await server.ok(ADD_COMMENT, { input: { taskId: task.id, item: items[1].id, body: `Blocked on [[#${items[0].id}]].` } });
    await server.ok(UPDATE_ITEM, { input: { id: items[0].id, state: 'DONE' } });
    // A query text of its own, so the first answer below is this server's first sight of it.
    const query = `${TASK_OPENED}\n# answers-the-same`;
    const answers = [];
    for (let i = 0; i < 3; i += 1) answers.push(await server.gql(query, { id: task.id, deleted: false, first: FIRST_PAGE, after: null }));
    expect(answers[0].errors).toBeUndefined();
    expect(answers[0].data!.task.items.nodes.map((item: { text: string }) => item.text)).toEqual(['Read the spec', 'Write the parser', 'Run the suite']);
    expect(answers[0].data!.task.notes.nodes[0].brief.dependsOn).toEqual([{ item: { id: items[0].id, number: 1, text: 'Read the spec', deleted: false }, reason: 'needs it' }]);
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
  });

  it('refuses the same: a coded domain error, a badly typed variable, and a null for a task that is not there', async () => {
    const cases: [string, Record<string, unknown>][] = [
      ['mutation($taskId: ID!) { addComment(input: { taskId: $taskId, body: "x" }) { id } } # refusal-1', { taskId: '99999999' }],
      ['mutation($input: UpdateItemInput!) { updateItem(input: $input) { id } } # refusal-2', { input: { id: '1', state: 'DONEE' } }],
      ['query($id: ID!) { task(id: $id) { id title } } # refusal-3', { id: '99999999' }],
    ];
    for (const [query, variables] of cases) {
      const first = await server.gql(query, variables);
      const again = await server.gql(query, variables);
      const third = await server.gql(query, variables);
      expect(again, query).toEqual(first);
      expect(third, query).toEqual(first);
    }
    const [notFound, badVariable, missing] = await Promise.all(cases.map(([query, variables]) => server.gql(query, variables)));
    expect(notFound.errors?.[0].extensions?.code).toBe('NOT_FOUND');
    expect(notFound.errors?.[0].path).toEqual(['addComment']);
    expect(badVariable.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    expect(badVariable.errors?.[0].message).toContain('DONEE');
    expect(missing.data).toEqual({ task: null });
  });
});
