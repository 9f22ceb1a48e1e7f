/**
 * No token can hold a backlog or swamp the dependency graph: a brief past a
 * dependency cap (50 edges by which one item waits, 200 waiting for one item,
 * 2,000 in a task) and a claim past a claim cap (20 live claims a session,
 * 200 a bearer token's sessions, a lease of at most an hour) are refused with
 * the cap named, and nothing is recorded. At the task's cap a brief write and
 * a read of every item's dependencies stay fast. Through GraphQL over HTTP
 * with bearer tokens on, on a real database (SQLite, or PostgreSQL with
 * TEST_POSTGRES_URL). Figures are printed for the note.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { ADD_ITEMS, ADD_TASK_NOTE, CLAIM_ITEM, CLAIM_NEXT, RELEASE_CLAIM, RENEW_CLAIM } from '../fixtures/documents.js';
import { brief, freshDomain } from '../fixtures/knowledge.js';
import { refusedAndNothingRecorded } from '../fixtures/nothing-recorded.js';
import { startSession } from '../fixtures/sessions.js';
import { createTask } from '../fixtures/tasks.js';

const DATABASE = process.env.TEST_POSTGRES_URL ? 'PostgreSQL' : 'SQLite';
let started: TestServer;
/** The server as the holder of one write token sees it. */
let writer: TestServer;
/** The same server, through a second write token. */
let otherWriter: TestServer;
/** Through a third, whose sessions fill the per-token cap. */
let crowd: TestServer;

/** `server` with every request sent with this bearer token. */
function withToken(server: TestServer, token: string): TestServer {
  const headers = { authorization: `Bearer ${token}` };
  const gql: TestServer['gql'] = (query, variables, options) => server.gql(query, variables, { ...options, headers: { ...headers, ...options?.headers } });
  return {
    ...server,
    gql,
    ok: async (query, variables, options) => {
      const result = await gql(query, variables, options);
      if (result.errors?.length) throw new Error(`unexpected GraphQL errors: ${JSON.stringify(result.errors)}`);
      return result.data as any;
    },
    refused: async (query, variables, options) => {
      const result = await gql(query, variables, options);
      if (!result.errors?.length) throw new Error(`expected a refusal, got ${JSON.stringify(result.data)}`);
      return { code: String(result.errors[0].extensions?.code), message: result.errors[0].message };
    },
  };
}

beforeAll(async () => {
  started = await startTestServer({ env: { TASKBASE_TOKENS: 'writer-one, writer-two, writer-crowd' } });
  writer = withToken(started, 'writer-one');
  otherWriter = withToken(started, 'writer-two');
  crowd = withToken(started, 'writer-crowd');
});
afterAll(async () => { await started?.close(); });

/** A task of `count` items (added 100 a call), in a fresh domain. */
async function bigTask(count: number, domain = freshDomain('caps')): Promise<{ taskId: string; ids: string[] }> {
  const labels = Array.from({ length: count }, (_, i) => `Step ${i + 1}`);
  const { task, items } = await createTask(writer, labels.slice(0, 100), { domain });
  const ids = items.map((item) => item.id);
  for (let from = 100; from < count; from += 100) {
    const added = (await writer.ok(ADD_ITEMS, { input: { taskId: task.id, items: labels.slice(from, from + 100) } })).addItems.items;
    ids.push(...added.map((item: { id: string }) => item.id));
  }
  return { taskId: task.id, ids };
}

function briefInput(taskId: string, items: string[], waitsFor: string[]) {
  return { input: { taskId, title: 'Order', items, brief: brief({ dependsOn: waitsFor.map((item) => ({ item })) }) } };
}

describe('dependency caps', () => {
  it('refuse a 51st edge by which one item waits, and a 201st waiting for one item, naming the cap', async () => {
    const { taskId, ids } = await bigTask(300);
    const [waiter, ...rest] = ids;
    await writer.ok(ADD_TASK_NOTE, briefInput(taskId, [waiter], rest.slice(0, 20)));
    await writer.ok(ADD_TASK_NOTE, briefInput(taskId, [waiter], rest.slice(20, 40)));
    const tooMany = await refusedAndNothingRecorded(writer, 'TOO_LARGE', ADD_TASK_NOTE, briefInput(taskId, [waiter], rest.slice(40, 51)));
    expect(tooMany).toContain(`Item ${waiter} would wait by 51 dependency edges`);
    expect(tooMany).toContain('at most 50');
    await writer.ok(ADD_TASK_NOTE, briefInput(taskId, [waiter], rest.slice(40, 50)));

    const target = ids.at(-1)!;
    await writer.ok(ADD_TASK_NOTE, briefInput(taskId, ids.slice(100, 200), [target]));
    await writer.ok(ADD_TASK_NOTE, briefInput(taskId, ids.slice(150, 250), [target]));
    const crowded = await refusedAndNothingRecorded(writer, 'TOO_LARGE', ADD_TASK_NOTE, briefInput(taskId, [ids[250]], [target]));
    expect(crowded).toContain(`201 dependency edges would wait for item ${target}; at most 200`);
  });

  it(`refuse a task's 2,001st edge, naming the cap; at the cap a brief write and a read of every item's dependencies stay fast, on ${DATABASE}`, async () => {
    const { taskId, ids } = await bigTask(200);
    // 100 items, each waiting for the same 20: 2,000 edges, the most a task holds.
    let began = performance.now();
    await writer.ok(ADD_TASK_NOTE, briefInput(taskId, ids.slice(20, 120), ids.slice(0, 20)));
    const fullWrite = performance.now() - began;
    began = performance.now();
    const refused = await writer.refused(ADD_TASK_NOTE, briefInput(taskId, [ids[150]], [ids[0]]));
    const refusedWrite = performance.now() - began;
    expect(refused.code).toBe('TOO_LARGE');
    expect(refused.message).toContain(`Task ${taskId} would hold 2001 dependency edges`);
    expect(refused.message).toContain('at most 2000');
    // A brief with no waits is still welcome on a full task.
    await writer.ok(ADD_TASK_NOTE, briefInput(taskId, [ids[150]], []));

    const readAll = () => writer.ok(`query($id: ID!) { task(id: $id) { items(first: 200) { nodes { id ready blockedBy { item { id } } blocks { id } } } } }`, { id: taskId });
    await readAll();
    began = performance.now();
    const read = await readAll();
    const fullRead = performance.now() - began;
    const nodes = read.task.items.nodes as { id: string; ready: boolean; blockedBy: unknown[]; blocks: unknown[] }[];
    expect(nodes.filter((node) => node.blockedBy.length === 20)).toHaveLength(100);
    expect(nodes.filter((node) => node.blocks.length === 100)).toHaveLength(20);
    console.log(`dependency caps on ${DATABASE}: a 2,000-edge brief written in ${fullWrite.toFixed(0)} ms, the 2,001st edge refused in ${refusedWrite.toFixed(0)} ms, ` +
      `200 items with ready/blockedBy/blocks read in ${fullRead.toFixed(0)} ms (the second read)`);
    expect(refusedWrite).toBeLessThan(2_000);
    expect(fullRead).toBeLessThan(2_000);
  }, 60_000);
});

describe('claim caps', () => {
  it('refuse a lease longer than an hour, saying the range', async () => {
    const { ids: [item] } = await bigTask(1);
    const session = await startSession(writer);
    for (const [query, variables] of [
      [CLAIM_ITEM, { input: { id: item, ttlSeconds: 3_601 } }],
      [CLAIM_NEXT, { domain: 'acme', ttlSeconds: 86_400 }],
    ] as const) {
      expect(await refusedAndNothingRecorded(writer, 'BAD_USER_INPUT', query, variables, { session })).toContain('1 to 3600 whole seconds (at most an hour');
    }
    await writer.ok(CLAIM_ITEM, { input: { id: item, ttlSeconds: 3_600 } }, { session });
    expect(await refusedAndNothingRecorded(writer, 'BAD_USER_INPUT', RENEW_CLAIM, { input: { id: item, ttlSeconds: 7_200 } }, { session })).toContain('at most an hour');
  });

  it("refuse a session's 21st live claim, by claimItem and by claimNext, naming the cap; a release makes room", async () => {
    const domain = freshDomain('caps');
    const { ids } = await bigTask(22, domain);
    const session = await startSession(writer);
    for (const id of ids.slice(0, 20)) await writer.ok(CLAIM_ITEM, { input: { id } }, { session });
    expect(await refusedAndNothingRecorded(writer, 'TOO_LARGE', CLAIM_ITEM, { input: { id: ids[20] } }, { session })).toContain('already holds 20 live claims');
    expect(await refusedAndNothingRecorded(writer, 'TOO_LARGE', CLAIM_NEXT, { domain }, { session })).toContain('the most one session may hold');
    await writer.ok(RELEASE_CLAIM, { id: ids[0] }, { session });
    expect((await writer.ok(CLAIM_NEXT, { domain }, { session })).claimNext.id).toBe(ids[0]);
  });

  it("refuse the 201st live claim of one bearer token's sessions, naming the cap; another token's sessions still claim", async () => {
    const domain = freshDomain('caps');
    const { ids } = await bigTask(202, domain);
    const sessions = await Promise.all(Array.from({ length: 11 }, () => startSession(crowd)));
    for (const session of sessions.slice(0, 10)) {
      for (let i = 0; i < 20; i += 1) await crowd.ok(CLAIM_NEXT, { domain }, { session });
      expect((await crowd.ok(`query($id: ID!) { session(id: $id) { claims { id } } }`, { id: session })).session.claims).toHaveLength(20);
    }
    const message = await refusedAndNothingRecorded(crowd, 'TOO_LARGE', CLAIM_NEXT, { domain }, { session: sessions[10] });
    expect(message).toContain('already hold 200 live claims between them, the most one token may hold');
    expect(await refusedAndNothingRecorded(crowd, 'TOO_LARGE', CLAIM_ITEM, { input: { id: ids[201] } }, { session: sessions[10] })).toContain('one token');
    const outsider = await startSession(otherWriter);
    expect((await otherWriter.ok(CLAIM_NEXT, { domain }, { session: outsider })).claimNext.id).toBe(ids[200]);
  }, 60_000);
});
