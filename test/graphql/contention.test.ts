/**
 * Many callers on one row at once (one server; on PostgreSQL its pool runs
 * them truly in parallel): retries with one idempotency key all get the
 * first result, and recorded times never go backwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { ADD_ITEMS, UPDATE_ITEM } from '../fixtures/documents.js';
import { createTask, readTask } from '../fixtures/tasks.js';

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

const HISTORY_TIMES = `query($id: ID!) { task(id: $id) { updatedAt version history(first: 200) { totalCount nodes { id at action } } } }`;

describe('idempotency keys under concurrent retries', () => {
  it('50 concurrent addItems with one key: all get the first call\'s items, and the items are added once', async () => {
    const { task } = await createTask(server, ['Existing']);
    const input = { taskId: task.id, items: ['Retried label A', 'Retried label B'], idempotencyKey: 'retry-storm-1' };
    const results = await Promise.all(Array.from({ length: 50 }, () => server.gql(ADD_ITEMS, { input })));
    const codes = results.map((result) => result.errors?.[0]?.extensions?.code ?? 'OK');
    expect(codes.filter((code) => code !== 'OK'), JSON.stringify(results.find((r) => r.errors)?.errors)).toEqual([]);
    const answers = results.map((result) => result.data!.addItems.items.map((item: { id: string; text: string }) => `${item.id}:${item.text}`));
    for (const answer of answers) expect(answer).toEqual(answers[0]);
    expect(answers[0].map((entry: string) => entry.split(':')[1])).toEqual(['Retried label A', 'Retried label B']);
    const read = await readTask(server, task.id);
    expect(read.items.nodes.map((item) => item.text)).toEqual(['Existing', 'Retried label A', 'Retried label B']);
    // One recorded change: created, then the one addItems.
    expect(read.version).toBe(task.version + 1);
  });

  it('50 concurrent retries of a refused call all get the refusal, and the key stays free for a corrected call', async () => {
    const { task } = await createTask(server, ['Existing']);
    const refusedInput = { taskId: task.id, items: ['Existing'], idempotencyKey: 'retry-storm-2' };
    const results = await Promise.all(Array.from({ length: 50 }, () => server.gql(ADD_ITEMS, { input: refusedInput })));
    expect(new Set(results.map((result) => result.errors?.[0]?.extensions?.code))).toEqual(new Set(['DUPLICATE_TEXT']));
    expect((await readTask(server, task.id)).version).toBe(task.version);
    // The refused calls claimed nothing: the key now takes new input, once.
    const corrected = { taskId: task.id, items: ['Something new'], idempotencyKey: 'retry-storm-2' };
    const retries = await Promise.all(Array.from({ length: 10 }, () => server.gql(ADD_ITEMS, { input: corrected })));
    for (const retry of retries) expect(retry.errors).toBeUndefined();
    expect(new Set(retries.map((retry) => retry.data!.addItems.items[0].id)).size).toBe(1);
    expect((await readTask(server, task.id)).items.nodes.map((item) => item.text)).toEqual(['Existing', 'Something new']);
  });
});

describe('recorded times under contention', () => {
  it('60 concurrent changes of one task: history times never go backwards, and updatedAt is the latest', async () => {
    const labels = Array.from({ length: 30 }, (_, i) => `Step ${i + 1}`);
    const { task, items } = await createTask(server, labels);
    const results = await Promise.all([
      ...items.map((item) => server.gql(UPDATE_ITEM, { input: { id: item.id, state: 'DONE' } })),
      ...items.map((item, i) => server.gql(UPDATE_ITEM, { input: { id: item.id, comment: `checked ${i}` } })),
    ]);
    for (const result of results) expect(result.errors).toBeUndefined();
    const { task: read } = await server.ok(HISTORY_TIMES, { id: task.id });
    const rows: { id: string; at: string; action: string }[] = read.history.nodes;
    expect(rows).toHaveLength(61);
    const times = rows.map((row) => Date.parse(row.at));
    for (let i = 1; i < times.length; i += 1) expect(times[i], `history row ${i + 1} is earlier than row ${i}`).toBeGreaterThanOrEqual(times[i - 1]);
    expect(read.updatedAt).toBe(rows.at(-1)!.at);
  });
});
