import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { CLAIM_ITEM, RELEASE_CLAIM, UPDATE_ITEM } from '../fixtures/documents.js';
import { readToEnd, type LoggedChange } from '../fixtures/change-feed.js';
import { freshDomain } from '../fixtures/knowledge.js';
import { startSession } from '../fixtures/sessions.js';
import { createTask } from '../fixtures/tasks.js';

/**
 * A lease that runs out is a change: the change feed (and so webhooks and
 * subscriptions) gets one ITEM_CLAIM_EXPIRED for it, about a second after it
 * ends, naming the item, its task and whose claim it was, so a listener
 * hears that the item is ready again. A claim ended on purpose (released, or
 * its item done) is its own change and is never told as an expiry.
 */
let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

async function feed(domain: string): Promise<LoggedChange[]> {
  return (await readToEnd((query, variables) => server.ok(query, variables) as never, null, domain, 50)).changes;
}

async function expiredIn(domain: string, within: number): Promise<LoggedChange[]> {
  const until = Date.now() + within;
  for (;;) {
    const expired = (await feed(domain)).filter((change) => change.action === 'ITEM_CLAIM_EXPIRED');
    if (expired.length || Date.now() > until) return expired;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('a lease that runs out', () => {
  it('is one ITEM_CLAIM_EXPIRED change in the feed, about its item, its task and whose claim it was; a claim released or ended by done is not', async () => {
    const domain = freshDomain('expiry');
    const { task, items: [lapsing, released, finished] } = await createTask(server, ['Rotate the key', 'Update the runbook', 'Retire the old key'], { domain });
    const agent = await startSession(server);
    // The two ended on purpose hold long enough to be ended before they would run out, however slow the machine.
    await server.ok(CLAIM_ITEM, { input: { id: released.id, ttlSeconds: 600 } }, { session: agent });
    await server.ok(CLAIM_ITEM, { input: { id: finished.id, ttlSeconds: 600 } }, { session: agent });
    await server.ok(RELEASE_CLAIM, { id: released.id }, { session: agent });
    await server.ok(UPDATE_ITEM, { input: { id: finished.id, state: 'DONE' } }, { session: agent });
    await server.ok(CLAIM_ITEM, { input: { id: lapsing.id, ttlSeconds: 1 } }, { session: agent });

    const expired = await expiredIn(domain, 10_000);
    expect(expired).toHaveLength(1);
    expect(expired[0]).toMatchObject({ action: 'ITEM_CLAIM_EXPIRED', itemId: lapsing.id, taskId: task.id, sessionId: agent, madeBy: null, domain });

    // Told once: later sweeps find it accounted for.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect((await feed(domain)).filter((change) => change.action === 'ITEM_CLAIM_EXPIRED')).toHaveLength(1);
  }, 30_000);
});
