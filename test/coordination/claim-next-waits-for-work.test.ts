/**
 * An agent waits for work instead of polling: claimNext with waitSeconds
 * holds the call while nothing is ready and claims an item as soon as one
 * is, woken by the change that freed it (the server's change feed). One
 * change wakes one waiter, and a waiter that claims passes the wake-up on,
 * so several items freed at once are each taken, and each by one waiter,
 * while waiters with nothing to take keep waiting to their time. Through
 * GraphQL over HTTP, on a real database file, and on PostgreSQL in CI.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAIM_ITEM, UPDATE_ITEM } from '../fixtures/documents.js';
import { freshDomain } from '../fixtures/knowledge.js';
import { refusedAndNothingRecorded } from '../fixtures/nothing-recorded.js';
import { startSession } from '../fixtures/sessions.js';
import { createTask } from '../fixtures/tasks.js';
import { startTestServer, type TestServer } from '../harness.js';

const WAIT_NEXT = `mutation($domain: String!, $wait: Int, $finish: FinishItemInput) {
  claimNext(domain: $domain, waitSeconds: $wait, finish: $finish) { id text state claim { session { id } } }
}`;

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

/** A task whose `first` item is ready and whose others each wait for it (`after`). */
async function fanOut(domain: string, waiting: string[]) {
  const { items } = await createTask(server, ['First', ...waiting], { domain });
  const [first, ...rest] = items.map((item) => item.id as string);
  for (const id of rest) await server.ok(UPDATE_ITEM, { input: { id, after: [first] } });
  return { first: first!, rest };
}

/** A claimNext that waits, with when it was answered. */
async function waitingClaim(domain: string, session: string, wait: number, finish?: { id: string }) {
  const answer = await server.ok(WAIT_NEXT, { domain, wait, finish }, { session });
  return { item: answer.claimNext as { id: string; text: string; claim: { session: { id: string } } } | null, at: performance.now() };
}

describe('claimNext with waitSeconds', () => {
  it('holds while nothing is ready and claims the item the moment the change that frees it commits', async () => {
    const domain = freshDomain('waits');
    const { first, rest: [second] } = await fanOut(domain, ['Second']);
    const [holder, waiter] = [await startSession(server), await startSession(server)];
    await server.ok(CLAIM_ITEM, { input: { id: first } }, { session: holder });

    const waiting = waitingClaim(domain, waiter, 20);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const doneAt = performance.now();
    await server.ok(UPDATE_ITEM, { input: { id: first, state: 'DONE' } }, { session: holder });
    const { item, at } = await waiting;
    // Answered after the DONE was sent, with the item it freed, long before its 20 s were up.
    expect(item).toMatchObject({ id: second, claim: { session: { id: waiter } } });
    expect(at).toBeGreaterThan(doneAt);
    expect(at - doneAt).toBeLessThan(10_000);
  });

  it('wakes one waiter per freed item: three freed at once go to three of five waiters, and the other two answer null when their time is up', async () => {
    const domain = freshDomain('waits-fan');
    const { first, rest } = await fanOut(domain, ['A', 'B', 'C']);
    const holder = await startSession(server);
    await server.ok(CLAIM_ITEM, { input: { id: first } }, { session: holder });
    const waiters = await Promise.all(Array.from({ length: 5 }, () => startSession(server)));

    const waiting = waiters.map((session) => waitingClaim(domain, session, 4));
    await new Promise((resolve) => setTimeout(resolve, 500));
    await server.ok(UPDATE_ITEM, { input: { id: first, state: 'DONE' } }, { session: holder });
    const answers = await Promise.all(waiting);
    const taken = answers.flatMap(({ item }) => (item ? [item.id] : []));
    expect(taken.sort()).toEqual([...rest].sort());
    expect(answers.filter(({ item }) => item === null)).toHaveLength(2);
  });

  it('settles its finish once, at the start, then waits for the next item', async () => {
    const domain = freshDomain('waits-finish');
    const { first, rest: [second] } = await fanOut(domain, ['Second']);
    const worker = await startSession(server);
    await server.ok(CLAIM_ITEM, { input: { id: first } }, { session: worker });
    // Finishing the first frees the second in the same call: no wait at all.
    const { item } = await waitingClaim(domain, worker, 5, { id: first });
    expect(item).toMatchObject({ id: second });
    // Nothing left in the domain: it waits its whole time, then answers null.
    const sent = performance.now();
    const { item: none, at } = await waitingClaim(domain, worker, 1, { id: second });
    expect(none).toBeNull();
    expect(at - sent).toBeGreaterThanOrEqual(900);
    for (const id of [first, second]) expect((await server.ok(`query($id: ID!) { item(id: $id) { state } }`, { id })).item.state).toBe('DONE');
  });

  it('refuses a wait outside 0..60 seconds with BAD_USER_INPUT, saying the range, and records nothing', async () => {
    const domain = freshDomain('waits-bad');
    await createTask(server, ['Only'], { domain });
    const session = await startSession(server);
    for (const wait of [61, -1]) {
      const message = await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', WAIT_NEXT, { domain, wait }, { session });
      expect(message).toContain('waitSeconds is 0..60');
    }
  });
});
