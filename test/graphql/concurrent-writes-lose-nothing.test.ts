/**
 * Many requests at once against one server and one database (on PostgreSQL
 * its pool runs them truly in parallel): every acknowledged change lands
 * exactly once, nothing refused or rolled back leaves a row, no update is
 * lost, no reader sees uncommitted rows, retries with one idempotency key all
 * get the first result, and recorded times never go backwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ItemEntity } from '../../src/db/entities/index.js';
import { startTestServer, type GraphQLResponse, type TestServer } from '../harness.js';
import { ADD_ITEMS, CREATE_TASK, EDIT_TASK, READ_HISTORY, READ_ITEMS_WITH_DELETED, UPDATE_ITEM } from '../fixtures/documents.js';
import { createTask, readTask, type Item } from '../fixtures/tasks.js';

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

async function historyCount(taskId: string): Promise<number> {
  return (await server.ok(READ_HISTORY, { id: taskId, first: 1 })).task.history.totalCount;
}

async function allItems(taskId: string): Promise<Item[]> {
  return (await server.ok(READ_ITEMS_WITH_DELETED, { id: taskId })).task.items.nodes;
}

const HISTORY_TIMES = `query($id: ID!) { task(id: $id) { updatedAt version history(first: 200) { totalCount nodes { id at action } } } }`;

function codeOf(result: GraphQLResponse): string | null {
  return result.errors?.length ? String(result.errors[0].extensions?.code) : null;
}

describe('concurrent changes to one task', () => {
  it('40 updateItem on different items all land: version +40, 40 history rows, every item changed', async () => {
    const labels = Array.from({ length: 40 }, (_, i) => `Item ${i + 1}`);
    const { task, items } = await createTask(server, labels);
    const states = ['DONE', 'IN_PROGRESS', 'DROPPED', 'BLOCKED', 'FAILED'];
    const results = await Promise.all(items.map((item, i) => server.gql(UPDATE_ITEM, { input: { id: item.id, state: states[i % states.length] } })));
    for (const result of results) expect(result.errors).toBeUndefined();

    const read = await readTask(server, task.id);
    expect(read.version).toBe(task.version + 40);
    expect(read.items.nodes.map((item) => item.state)).toEqual(items.map((_, i) => states[i % states.length]));
    expect(await historyCount(task.id)).toBe(41);

    // Each event records exactly one item's change, and together they cover every item once.
    const history = (await server.ok(READ_HISTORY, { id: task.id, first: 200 })).task.history.nodes;
    const changed = history.slice(1).map((event: { changes: { itemId: string; kind: string }[] }) => {
      expect(event.changes).toHaveLength(1);
      expect(event.changes[0].kind).toBe('STATE');
      return event.changes[0].itemId;
    });
    expect([...changed].sort()).toEqual(items.map((item) => item.id).sort());
    // The last event's list is the final list.
    expect(history.at(-1).items.map((item: { state: string }) => item.state)).toEqual(read.items.nodes.map((item) => item.state));
  });

  it('30 addItems with unique labels: every acknowledged label is there exactly once, with distinct ids and places', async () => {
    const { task } = await createTask(server, ['Existing']);
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => server.gql(ADD_ITEMS, { input: { taskId: task.id, items: [`Added ${i}a`, `Added ${i}b`] } })),
    );
    const acknowledged = results.flatMap((result) => {
      expect(result.errors).toBeUndefined();
      return result.data!.addItems.items as Item[];
    });
    expect(acknowledged).toHaveLength(60);

    const items = await allItems(task.id);
    expect(items).toHaveLength(61);
    const texts = items.map((item) => item.text);
    for (const item of acknowledged) expect(texts.filter((text) => text === item.text)).toHaveLength(1);
    expect(new Set(items.map((item) => item.id)).size).toBe(61);
    expect(items.map((item) => item.number)).toEqual(Array.from({ length: 61 }, (_, i) => i + 1));
    // Each call's two labels stay together, in the order sent.
    for (let i = 0; i < 30; i += 1) expect(texts.indexOf(`Added ${i}b`)).toBe(texts.indexOf(`Added ${i}a`) + 1);
    // Ids the calls were told are the ids stored.
    const byText = new Map(items.map((item) => [item.text, item.id]));
    for (const item of acknowledged) expect(byText.get(item.text)).toBe(item.id);
    expect((await readTask(server, task.id)).version).toBe(31);
    expect(await historyCount(task.id)).toBe(31);
  });

  it('with the same expectedVersion, exactly one of many changes succeeds; the others get VERSION_CONFLICT and record nothing', async () => {
    const { task, items } = await createTask(server, Array.from({ length: 12 }, (_, i) => `Item ${i}`));
    const requests = [
      ...items.slice(0, 8).map((item) => server.gql(UPDATE_ITEM, { input: { id: item.id, state: 'DONE', expectedVersion: 1 } })),
      ...[0, 1].map((i) => server.gql(EDIT_TASK, { input: { id: task.id, title: `Title ${i}`, expectedVersion: 1 } })),
      ...[0, 1].map((i) => server.gql(ADD_ITEMS, { input: { taskId: task.id, items: [`Late ${i}`], expectedVersion: 1 } })),
    ];
    const results = await Promise.all(requests);
    const codes = results.map(codeOf);
    expect(codes.filter((code) => code === null)).toHaveLength(1);
    expect(codes.filter((code) => code === 'VERSION_CONFLICT')).toHaveLength(results.length - 1);

    const read = await readTask(server, task.id);
    expect(read.version).toBe(2);
    expect(await historyCount(task.id)).toBe(2);
    // Only the winner's change is visible.
    const winner = codes.indexOf(null);
    const done = read.items.nodes.filter((item) => item.state === 'DONE').map((item) => item.id);
    const lateLabels = read.items.nodes.filter((item) => item.text.startsWith('Late')).map((item) => item.text);
    if (winner < 8) {
      expect(done).toEqual([items[winner].id]);
      expect(read.title).toBe(task.title);
      expect(lateLabels).toEqual([]);
    } else if (winner < 10) {
      expect(done).toEqual([]);
      expect(read.title).toBe(`Title ${winner - 8}`);
      expect(lateLabels).toEqual([]);
    } else {
      expect(done).toEqual([]);
      expect(lateLabels).toEqual([`Late ${winner - 10}`]);
    }
  });

  it('a mix of refused and accepted calls at once: refused ones leave nothing, accepted ones are all there', async () => {
    const { task } = await createTask(server, ['Existing']);
    const requests = Array.from({ length: 40 }, (_, i) => {
      const refused = i % 2 === 1;
      // A refused call carries a fresh label too, then one that duplicates a live item.
      const labels = refused ? [`Refused ${i}`, 'Existing'] : [`Accepted ${i}`];
      return server.gql(ADD_ITEMS, { input: { taskId: task.id, items: labels } });
    });
    // Reads interleaved with the writes never show a refused call's labels.
    const reads = Array.from({ length: 10 }, () => allItems(task.id));
    const [results, snapshots] = await Promise.all([Promise.all(requests), Promise.all(reads)]);

    const accepted = results.filter((result) => codeOf(result) === null);
    const refused = results.filter((result) => codeOf(result) !== null);
    expect(accepted).toHaveLength(20);
    expect(refused.map(codeOf)).toEqual(Array(20).fill('DUPLICATE_TEXT'));

    const texts = (await allItems(task.id)).map((item) => item.text);
    expect(texts.filter((text) => text.startsWith('Refused'))).toEqual([]);
    expect(texts.filter((text) => text.startsWith('Accepted')).sort()).toEqual(
      Array.from({ length: 20 }, (_, i) => `Accepted ${i * 2}`).sort(),
    );
    for (const snapshot of snapshots) expect(snapshot.filter((item) => item.text.startsWith('Refused'))).toEqual([]);
    expect((await readTask(server, task.id)).version).toBe(21);
    expect(await historyCount(task.id)).toBe(21);
  });

  it('concurrent createTask calls with one idempotency key make one task and all get its ids', async () => {
    const input = { title: 'Once only', goal: 'One task.', items: ['A', 'B'], domain: 'ops/infra', idempotencyKey: 'concurrent-create' };
    const results = await Promise.all(Array.from({ length: 10 }, () => server.ok(CREATE_TASK, { input })));
    const ids = new Set(results.map((data) => data.createTask.task.id));
    expect(ids.size).toBe(1);
    const itemIds = new Set(results.map((data) => data.createTask.items.map((item: Item) => item.id).join(',')));
    expect(itemIds.size).toBe(1);
    const [{ n }] = await server.app.services.db.reader.query(`SELECT count(*) AS n FROM "memories" WHERE "title" = 'Once only'`);
    expect(Number(n)).toBe(1);
  });
});

describe('a write that rolls back, while others run', () => {
  it('takes no acknowledged write with it, and no reader ever sees its rows', async () => {
    const { task } = await createTask(server, ['Existing']);
    const db = server.app.services.db;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    let inserted!: () => void;
    const insertedSignal = new Promise<void>((resolve) => { inserted = resolve; });

    // A unit of work that writes an item, waits, then fails: what a mutation refused after writing does.
    const failing = db.transaction(async (manager) => {
      // Like every mutation, it holds the task's row lock first (on SQLite the write lock does that).
      if (db.kind === 'postgres') await manager.query('SELECT 1 FROM "memories" WHERE "id" = $1 FOR NO KEY UPDATE', [Number(task.id)]);
      await manager.insert(ItemEntity, {
        taskId: Number(task.id), text: 'Uncommitted', state: 'PENDING', position: 99, deleted: false, added: true, note: null,
        createdAt: new Date().toISOString(), updatedAt: new Date().toISOString(),
      });
      inserted();
      await gate;
      throw new Error('refused after writing');
    });
    failing.catch(() => undefined); // asserted below; never an unhandled rejection if an earlier check fails
    await insertedSignal;

    // While it is open: reads answer, without its row; writes queue behind it.
    const writes = Array.from({ length: 10 }, (_, i) => server.gql(ADD_ITEMS, { input: { taskId: task.id, items: [`Queued ${i}`] } }));
    try {
      for (let i = 0; i < 5; i += 1) {
        expect((await allItems(task.id)).map((item) => item.text)).toEqual(['Existing']);
      }
    } finally {
      release();
    }
    await expect(failing).rejects.toThrow('refused after writing');
    const results = await Promise.all(writes);
    for (const result of results) expect(result.errors).toBeUndefined();

    const texts = (await allItems(task.id)).map((item) => item.text);
    expect(texts).not.toContain('Uncommitted');
    expect(texts.filter((text) => text.startsWith('Queued')).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `Queued ${i}`).sort());
    expect((await readTask(server, task.id)).version).toBe(11);
    // Nothing was left on the connection: the next change commits normally.
    await server.ok(EDIT_TASK, { input: { id: task.id, title: 'After the rollback' } });
    expect((await readTask(server, task.id)).title).toBe('After the rollback');
  });
});

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
