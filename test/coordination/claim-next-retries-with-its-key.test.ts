/**
 * claimNext with an idempotencyKey (issue 41 finding 6, errors.md CLAIMED):
 * a caller whose claimNext committed but whose answer was lost (a database
 * restart) sends it again with the same key and gets the item it already
 * holds, instead of a second claim that leaves the first item held by no one
 * until its lease ends. Through GraphQL over HTTP, on SQLite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { CLAIM_ITEM, READ_HISTORY, SESSION_CLAIMS } from '../fixtures/documents.js';
import { freshDomain } from '../fixtures/knowledge.js';
import { databaseState, refusedAndNothingRecorded } from '../fixtures/nothing-recorded.js';
import { startSession } from '../fixtures/sessions.js';
import { createTask } from '../fixtures/tasks.js';

const CLAIM_NEXT_KEYED = `mutation($domain: String!, $ttlSeconds: Int, $idempotencyKey: String) {
  claimNext(domain: $domain, ttlSeconds: $ttlSeconds, idempotencyKey: $idempotencyKey) { id text claim { session { id } expiresAt } }
}`;

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

async function claimNext(session: string, domain: string, idempotencyKey: string, ttlSeconds?: number) {
  return (await server.ok(CLAIM_NEXT_KEYED, { domain, idempotencyKey, ttlSeconds }, { session })).claimNext as { id: string; text: string; claim: { session: { id: string }; expiresAt: string } | null } | null;
}

async function claimRows(taskId: string) {
  const nodes = (await server.ok(READ_HISTORY, { id: taskId, first: 200 })).task.history.nodes as { action: string; sessionId: string | null }[];
  return nodes.filter((row) => row.action === 'ITEM_CLAIMED');
}

describe('claimNext with an idempotencyKey', () => {
  it('a retry with the same key answers the same item and claims nothing new; another key claims the next item', async () => {
    const domain = freshDomain('claimkey');
    const { task, items } = await createTask(server, ['Migrate the ledger', 'Backfill refunds', 'Drop the old table'], { domain });
    const a = await startSession(server);

    const first = await claimNext(a, domain, 'claim-once-1');
    expect(first?.id).toBe(items[0]!.id);
    expect(first?.claim?.session.id).toBe(a);

    const before = await databaseState(server);
    const retry = await claimNext(a, domain, 'claim-once-1');
    expect(retry).toEqual(first);
    // The retry recorded nothing at all: no second claim, no history row, no change.
    expect(await databaseState(server)).toEqual(before);
    expect((await server.ok(SESSION_CLAIMS, { id: a })).session.claims.map((c: { id: string }) => c.id)).toEqual([items[0]!.id]);
    expect(await claimRows(task.id)).toHaveLength(1);

    const next = await claimNext(a, domain, 'claim-once-2');
    expect(next?.id).toBe(items[1]!.id);
    expect(await claimRows(task.id)).toHaveLength(2);

    // Keys are the session's own: another session sending the same key claims an item of its own.
    const b = await startSession(server);
    expect((await claimNext(b, domain, 'claim-once-1'))?.id).toBe(items[2]!.id);

    // The same key with other input is refused, naming the key.
    expect(await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', CLAIM_NEXT_KEYED, { domain, idempotencyKey: 'claim-once-1', ttlSeconds: 60 }, { session: a }))
      .toContain('claim-once-1');
  });

  it('a call that found nothing ready keeps no key: its retry claims what has become ready', async () => {
    const domain = freshDomain('claimkey');
    const a = await startSession(server);
    expect(await claimNext(a, domain, 'claim-empty-1')).toBeNull();
    const { items } = await createTask(server, ['Rotate the keys'], { domain });
    expect((await claimNext(a, domain, 'claim-empty-1'))?.id).toBe(items[0]!.id);
  });

  it('a retry after the claim lapsed and another session took the item is CLAIMED, naming the holder, not an item it no longer holds', async () => {
    const domain = freshDomain('claimkey');
    const { items } = await createTask(server, ['Rebuild the index', 'Vacuum'], { domain });
    const [a, b] = [await startSession(server), await startSession(server)];
    expect((await claimNext(a, domain, 'claim-lapse-1', 1))?.id).toBe(items[0]!.id);
    await new Promise((resolve) => setTimeout(resolve, 1_300));
    expect((await server.ok(CLAIM_ITEM, { input: { id: items[0]!.id } }, { session: b })).claimItem.claim.session.id).toBe(b);

    const message = await refusedAndNothingRecorded(server, 'CLAIMED', CLAIM_NEXT_KEYED, { domain, idempotencyKey: 'claim-lapse-1', ttlSeconds: 1 }, { session: a });
    expect(message).toContain(b);
    expect(message).toContain('new idempotencyKey');
  });
});
