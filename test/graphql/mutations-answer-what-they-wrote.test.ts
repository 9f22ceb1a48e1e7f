/**
 * updateItem answers its task from the row its own transaction wrote: no
 * statement reads the task back after the commit, and what it answers is
 * what a read right after it gives (version, state, progress, time). Two
 * mutations in one document each answer what they left, the second seeing
 * the first. Counted on both connections while the request runs.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freshDomain } from '../fixtures/knowledge.js';
import { createTask } from '../fixtures/tasks.js';
import { startTestServer, type TestServer } from '../harness.js';

let statements: string[] = [];
let server: TestServer;
beforeAll(async () => { server = await startTestServer({ onQuery: (sql) => { statements.push(sql); } }); });
afterAll(async () => { await server?.close(); });

const WRITTEN_TASK_FIELDS = 'id version state status updatedAt progress { done total blocked failed }';
const UPDATE = `mutation($input: UpdateItemInput!) { updateItem(input: $input) { id state task { ${WRITTEN_TASK_FIELDS} } } }`;
const READ = `query($id: ID!) { task(id: $id) { ${WRITTEN_TASK_FIELDS} } }`;

/** The statements of one call that read a task's row after its transaction committed. */
function readsBackAfterCommit(sent: string[]): string[] {
  const commit = sent.findLastIndex((sql) => /^\s*COMMIT/i.test(sql));
  expect(commit, 'the mutation commits').toBeGreaterThanOrEqual(0);
  return sent.slice(commit + 1).filter((sql) => sql.includes('FROM "memories"'));
}

it('answers the task it changed without reading it back, as a read right after gives it', async () => {
  const { task, items } = await createTask(server, ['Write the plan', 'Ship it'], { domain: freshDomain('written') });
  statements = [];
  const answer = await server.ok(UPDATE, { input: { id: items[0]!.id, state: 'DONE' } });
  expect(readsBackAfterCommit(statements)).toEqual([]);
  const read = await server.ok(READ, { id: task.id });
  expect(answer.updateItem.task).toEqual(read.task);
  expect(answer.updateItem.task).toMatchObject({ version: (task.version as number) + 1, progress: { done: 1, total: 2 } });
});

it('answers a retried update, which records nothing, with the task as it stands', async () => {
  const { task, items } = await createTask(server, ['Only step'], { domain: freshDomain('written') });
  await server.ok(UPDATE, { input: { id: items[0]!.id, state: 'IN_PROGRESS' } });
  const again = await server.ok(UPDATE, { input: { id: items[0]!.id, state: 'IN_PROGRESS' } });
  expect(again.updateItem.task).toEqual((await server.ok(READ, { id: task.id })).task);
});

it('answers each of two mutations in one document with what it left, the second after the first', async () => {
  const { task, items } = await createTask(server, ['First', 'Second'], { domain: freshDomain('written') });
  const both = await server.ok(`mutation($a: UpdateItemInput!, $b: UpdateItemInput!) {
    a: updateItem(input: $a) { task { version progress { done total } } }
    b: updateItem(input: $b) { task { version progress { done total } } }
  }`, { a: { id: items[0]!.id, state: 'DONE' }, b: { id: items[1]!.id, state: 'DONE' } });
  const version = task.version as number;
  expect(both.a.task).toEqual({ version: version + 1, progress: { done: 1, total: 2 } });
  expect(both.b.task).toEqual({ version: version + 2, progress: { done: 2, total: 2 } });
});
