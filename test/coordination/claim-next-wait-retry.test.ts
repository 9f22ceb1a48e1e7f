/**
 * A claimNext with finish, an idempotencyKey and waitSeconds settles its
 * finish at the first look, waits, then claims at a later look. Its key is
 * kept under the call as the caller sent it (finish included), so the
 * caller's retry of the very same call (its answer lost) answers the item it
 * claimed, not a refusal as "a different claimNext call" that would leave
 * the item held by a session that does not know it has it. Found in review.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAIM_ITEM, UPDATE_ITEM } from '../fixtures/documents.js';
import { freshDomain } from '../fixtures/knowledge.js';
import { startSession } from '../fixtures/sessions.js';
import { createTask } from '../fixtures/tasks.js';
import { startTestServer, type TestServer } from '../harness.js';

const WAIT_NEXT = `mutation($domain: String!, $wait: Int, $finish: FinishItemInput, $key: String) {
  claimNext(domain: $domain, waitSeconds: $wait, finish: $finish, idempotencyKey: $key) { id }
}`;

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

describe('claimNext with finish, idempotencyKey and waitSeconds', () => {
  it('answers a retry of a call that waited and then claimed with the item it claimed', async () => {
    const domain = freshDomain('wait-retry');
    const { items } = await createTask(server, ['First', 'Second'], { domain });
    const [first, second] = items.map((item) => item.id as string);
    await server.ok(UPDATE_ITEM, { input: { id: second, after: [first] } });
    const { items: [mine] } = await createTask(server, ['Mine'], { domain });
    const [holder, worker] = [await startSession(server), await startSession(server)];
    await server.ok(CLAIM_ITEM, { input: { id: first } }, { session: holder });
    await server.ok(CLAIM_ITEM, { input: { id: mine!.id } }, { session: worker });

    const variables = { domain, wait: 10, finish: { id: mine!.id }, key: 'retry-me' };
    const waiting = server.ok(WAIT_NEXT, variables, { session: worker });
    await new Promise((resolve) => setTimeout(resolve, 500));
    await server.ok(UPDATE_ITEM, { input: { id: first, state: 'DONE' } }, { session: holder });
    expect((await waiting).claimNext).toEqual({ id: second });

    // The answer was lost: the worker sends the same call again, with the same key.
    const retried = await server.ok(WAIT_NEXT, variables, { session: worker });
    expect(retried.claimNext).toEqual({ id: second });
  });
});
