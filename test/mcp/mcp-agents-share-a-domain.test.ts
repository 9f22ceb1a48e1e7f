/**
 * Two agents working one domain through the knowledge-base tools (the SDK's
 * client): task_next hands each a different ready item with its brief,
 * task_claim claims, renews and releases, task_read shows who holds what and
 * what waits, and work on another agent's claimed item is recorded and says so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { freshDomain } from '../fixtures/knowledge.js';
import { connectMcp, refusedByTool, type McpTestClient } from '../fixtures/mcp.js';

let server: TestServer;
let alice: McpTestClient;
let bob: McpTestClient;
beforeAll(async () => {
  server = await startTestServer();
  alice = await connectMcp(server, { structured: true, tools: 'knowledge-base' });
  bob = await connectMcp(server, { structured: true, tools: 'knowledge-base' });
});
afterAll(async () => {
  await alice?.close();
  await bob?.close();
  await server?.close();
});

async function backlog(domain: string) {
  const { data } = await alice.ok('task', {
    title: 'Refunds', goal: 'Customers can be refunded from the dashboard.', domain,
    items: 'Add the refunds table\nWrite the refund email\nWrite the refund handler',
  });
  const [table, email, handler] = data.items as [string, string, string];
  await alice.ok('task_note', {
    uid: data.uid, title: 'Handler', items: handler, goal: 'Refund through the provider.', context: 'The provider client is in billing/.',
    steps: 'Call refunds.create, then record it.', pitfalls: 'Never refund twice.', done_when: 'The handler test passes.',
    depends_on: `${table} (it writes the table)`,
  });
  await alice.ok('task_note', {
    uid: data.uid, title: 'Table', items: table, goal: 'A refunds table keyed by provider id.', context: 'Migrations live in db/.',
    steps: 'Add the migration.', pitfalls: 'Index the provider id.', done_when: 'The migration runs on both databases.', depends_on: 'none',
  });
  return { uid: data.uid as string, table, email, handler };
}

describe('two agents on one domain', () => {
  it('each takes a different ready item with task_next, with its brief; what waits comes free once its dependency is done', async () => {
    const domain = freshDomain('agents');
    const { uid, table, email, handler } = await backlog(domain);
    const [aliceSession, bobSession] = [await alice.sessionId(), await bob.sessionId()];

    // The ready list, read-only: what task_next would hand out, in that order; the handler waits for the table.
    const ready = await bob.ok('task_ready', { domain });
    expect(ready.text.split('\n').slice(1, 3)).toEqual([`item ${table} "Add the refunds table" (task ${uid})`, `item ${email} "Write the refund email" (task ${uid})`]);

    const first = await alice.ok('task_next', { domain });
    expect(first.data).toMatchObject({ item: { id: table, state: 'todo' }, task: uid, claim: { session: aliceSession } });
    expect(first.text).toContain(`Claimed item ${table} "Add the refunds table"`);
    expect(first.text).toContain(`claimed by you for 900 s (until ${first.data.claim.expires_at})`);
    expect(first.text).toContain('GOAL: A refunds table keyed by provider id.');
    expect(first.data.briefs).toHaveLength(1);

    const second = await bob.ok('task_next', { domain });
    expect(second.data).toMatchObject({ item: { id: email }, claim: { session: bobSession } });
    expect(second.text).toContain('No brief on this item');

    // The handler waits for the table, which Alice holds: nothing is left for her.
    const none = await alice.ok('task_next', { domain });
    // Every knowledge-base answer names the chat's session (a stop hook reads it there).
    expect(none.data).toMatchObject({ answer: none.text, outcome: 'wait', item: null, task: null, claim: null, briefs: [], sessionId: aliceSession });
    expect(none.data.queue).toMatchObject({ claimed: 2, waiting: 1, stuck: 0 });
    expect(none.text).toContain(`Nothing is ready in ${domain}`);
    const nothingReady = await bob.ok('task_ready', { domain });
    expect(nothingReady.text).toBe(none.text);

    const read = await bob.ok('task_read', { uid, collection: 'items' });
    expect(read.data.entries).toMatchObject([
      { id: table, claim: { session: aliceSession }, blocked_by: [] },
      { id: email, claim: { session: bobSession }, blocked_by: [] },
      { id: handler, claim: null, blocked_by: [table] },
    ]);
    expect(read.text).toMatch(new RegExp(`claimed by session ${aliceSession} for \\d+ s \\(until `));
    expect(read.text).toMatch(/claimed by you for \d+ s \(until /);
    // An open dependency by its place and label; once it is done, not at all.
    expect(read.text).toContain('waits for #1 Add the refunds table');

    // Done ends Alice's claim and frees the handler, which she takes next.
    await alice.ok('task_item', { uid, item: table, state: 'done', comment: 'Migration added.' });
    const next = await alice.ok('task_next', { domain });
    expect(next.data).toMatchObject({ item: { id: handler }, claim: { session: aliceSession } });
    expect(next.text).toContain('DEPENDS ON: [#1 Add the refunds table] (it writes the table)');
    const settled = await bob.ok('task_read', { uid, collection: 'items' });
    expect(settled.text).not.toContain('waits for');
    expect(settled.data.entries[2]).toMatchObject({ id: handler, blocked_by: [] });

    // Renewing after the item was finished says so, instead of "claim it again".
    const finished = await refusedByTool(server, alice, 'task_claim', { item: table, action: 'renew' });
    expect(finished).toContain(`item ${table}, and the item is already done: there is nothing left to renew or claim`);
    expect(finished).toContain('task_next');
  });

  it('task_claim claims, refuses another agent with the holder and expiry, renews and releases; work on a held item says who holds it', async () => {
    const domain = freshDomain('agents');
    const { uid, email } = await backlog(domain);
    const aliceSession = await alice.sessionId();

    const claimed = await alice.ok('task_claim', { item: email, ttl_seconds: 600 });
    expect(claimed.data).toMatchObject({ item: { id: email }, task: uid, claim: { session: aliceSession } });
    expect(claimed.text).toContain('Renew it (action "renew")');

    const refused = await refusedByTool(server, bob, 'task_claim', { item: email });
    expect(refused).toMatch(new RegExp(`claimed by session ${aliceSession} for \\d+ s \\(until ${claimed.data.claim.expires_at}\\)`));
    expect(refused).toContain('task_next');
    // Renewing what another agent holds says who holds it and for how long, not "claim it again".
    const renew = await refusedByTool(server, bob, 'task_claim', { item: email, action: 'renew' });
    expect(renew).toMatch(new RegExp(`session ${aliceSession} holds it for \\d+ s \\(until ${claimed.data.claim.expires_at}\\)`));
    expect(renew).toContain('task_next');
    expect(renew).not.toContain('Claim it again');
    expect(await refusedByTool(server, alice, 'task_claim', { item: email, ttl_seconds: 3_601 })).toContain('ttl_seconds');
    expect(await refusedByTool(server, alice, 'task_claim', { item: email, action: 'steal' })).toContain('claim, renew or release');

    const worked = await bob.ok('task_item', { uid, item: email, comment: 'I have a draft of this already.' });
    expect(worked.text).toMatch(new RegExp(`Note: item ${email} is claimed by session ${aliceSession} for \\d+ s \\(until `));
    const commented = await bob.ok('task_comment', { uid, item: email, body: 'Reuse the receipt layout.' });
    expect(commented.text).toContain(`Note: item ${email} is claimed by session ${aliceSession}`);
    const own = await alice.ok('task_item', { uid, item: email, state: 'doing' });
    expect(own.text).not.toContain('Note: item');

    const renewed = await alice.ok('task_claim', { item: email, action: 'renew', ttl_seconds: 1200 });
    expect(Date.parse(renewed.data.claim.expires_at)).toBeGreaterThan(Date.parse(claimed.data.claim.expires_at));
    const released = await alice.ok('task_claim', { item: email, action: 'release' });
    expect(released.data.claim).toBeNull();
    expect((await bob.ok('task_claim', { item: email })).data.claim.session).toBe(await bob.sessionId());
  });
});
