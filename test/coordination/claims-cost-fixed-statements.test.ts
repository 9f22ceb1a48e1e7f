/**
 * Claims over GraphQL cost a fixed few SQL statements whatever the task's
 * size: claimItem, claiming again (a renewal), renewClaim, releaseClaim and
 * claimNext each cost the same on a task of 200 items as on one of 20, and
 * the ready queue is read the same way for a page of 20 as for 200; and
 * claimNext with finish costs less than the claimNext and updateItem DONE
 * it replaces; on PostgreSQL, where every statement is a round trip, no
 * more than updateItem DONE alone. Counted on both connections while the
 * request runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADD_ITEMS, CLAIM_ITEM, CLAIM_NEXT, READY, RELEASE_CLAIM, RENEW_CLAIM, UPDATE_ITEM } from '../fixtures/documents.js';
import { freshDomain } from '../fixtures/knowledge.js';
import { startSession } from '../fixtures/sessions.js';
import { createTask } from '../fixtures/tasks.js';
import { startTestServer, type TestServer } from '../harness.js';

const onPostgres = Boolean(process.env.TEST_POSTGRES_URL);
let statements = 0;
let server: TestServer;
beforeAll(async () => { server = await startTestServer({ onQuery: () => { statements += 1; } }); });
afterAll(async () => { await server?.close(); });

/**
 * The fewest statements of two like requests: the server's own background
 * work (pruning the change log once a minute) may land inside one of them,
 * never inside both.
 */
async function costOf(calls: [() => Promise<unknown>, () => Promise<unknown>]): Promise<number> {
  const costs: number[] = [];
  for (const call of calls) {
    statements = 0;
    await call();
    costs.push(statements);
  }
  return Math.min(...costs);
}

/** A task of `size` ready items in a domain of its own. */
async function taskOf(size: number) {
  const domain = freshDomain(`claim-cost-${size}`);
  const labels = Array.from({ length: size }, (_, i) => `Item ${i + 1}`);
  const { task, items } = await createTask(server, labels.slice(0, 100), { domain });
  const ids = items.map((item) => item.id as string);
  for (let start = 100; start < size; start += 100) {
    ids.push(...(await server.ok(ADD_ITEMS, { input: { taskId: task.id, items: labels.slice(start, start + 100) } })).addItems.items.map((item: { id: string }) => item.id));
  }
  return { domain, ids };
}

/** What each claim request costs on a task of `size` items, as one session. */
async function claimsOn(size: number) {
  const { domain, ids } = await taskOf(size);
  const session = await startSession(server);
  const as = (query: string, variables: Record<string, unknown>) => () => server.ok(query, variables, { session });
  return {
    ready: await costOf([() => server.ok(READY, { domain, first: size }), () => server.ok(READY, { domain, first: size })]),
    claimItem: await costOf([as(CLAIM_ITEM, { input: { id: ids[0] } }), as(CLAIM_ITEM, { input: { id: ids[1] } })]),
    claimAgain: await costOf([as(CLAIM_ITEM, { input: { id: ids[0] } }), as(CLAIM_ITEM, { input: { id: ids[1] } })]),
    renewClaim: await costOf([as(RENEW_CLAIM, { input: { id: ids[0] } }), as(RENEW_CLAIM, { input: { id: ids[1] } })]),
    releaseClaim: await costOf([as(RELEASE_CLAIM, { id: ids[0] }), as(RELEASE_CLAIM, { id: ids[1] })]),
    claimNext: await costOf([as(CLAIM_NEXT, { domain }), as(CLAIM_NEXT, { domain })]),
    done: await costOf([as(UPDATE_ITEM, { input: { id: await next(), state: 'DONE' } }), as(UPDATE_ITEM, { input: { id: await next(), state: 'DONE' } })]),
    finishAndNext: await costOf([as(FINISH_AND_NEXT, { domain, finish: { id: await next() } }), as(FINISH_AND_NEXT, { domain, finish: { id: await next() } })]),
  };

  /** Claims the next ready item for the session (outside the counted requests): an item it holds, to settle. */
  async function next(): Promise<string> {
    return (await server.ok(CLAIM_NEXT, { domain }, { session })).claimNext.id;
  }
}

const FINISH_AND_NEXT = `mutation($domain: String!, $finish: FinishItemInput) { claimNext(domain: $domain, finish: $finish) { id } }`;

describe('claims cost fixed statements', () => {
  it('claimItem, renewClaim, releaseClaim, claimNext (with finish too) and ready cost the same few statements on a task of 200 items as on one of 20', { timeout: 120_000 }, async () => {
    const small = await claimsOn(20);
    const large = await claimsOn(200);
    console.log(`statements per request: ${JSON.stringify({ small, large })}`);
    expect(large).toEqual(small);
    // The ready page: the queue, then its items' claims and what they wait for (their `ready` field), one statement each.
    expect(small.ready).toBe(3);
    // A claim write reads the task once and writes its claim, history row and change: no statement per item.
    for (const name of ['claimItem', 'claimAgain', 'renewClaim', 'releaseClaim', 'claimNext'] as const) {
      expect(small[name], name).toBeLessThanOrEqual(18);
    }
    // Settling the held item and claiming the next in one call costs less than the two calls it replaces.
    expect(small.finishAndNext).toBeLessThan(small.claimNext + small.done);
  });
});

if (onPostgres) {
  describe('claims cost fixed statements (PostgreSQL)', () => {
    it('settles the held item and claims the next in no more statements than updateItem DONE alone', { timeout: 120_000 }, async () => {
      const { done, finishAndNext } = await claimsOn(20);
      expect(finishAndNext).toBeLessThanOrEqual(done);
    });
  });
}
