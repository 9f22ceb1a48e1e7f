/** Claims on items through GraphQL over HTTP: a lease per item, held by one session, timed by the database's clock. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import {
  CLAIM_ITEM, CLAIM_NEXT, DELETE_ITEM, FINISH_SESSION, ITEM_COORDINATION, READ_HISTORY, READY, RELEASE_CLAIM, RENEW_CLAIM, SESSION_CLAIMS,
} from '../fixtures/documents.js';
import { freshDomain } from '../fixtures/knowledge.js';
import { refusedAndNothingRecorded } from '../fixtures/nothing-recorded.js';
import { startSession, writeTodos } from '../fixtures/sessions.js';
import { createTask } from '../fixtures/tasks.js';

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

const UPDATE_WITH_CLAIM = `mutation($input: UpdateItemInput!) { updateItem(input: $input) { id state claim { session { id } expiresAt } } }`;

async function claim(session: string, id: string, ttlSeconds?: number) {
  return (await server.ok(CLAIM_ITEM, { input: { id, ttlSeconds } }, { session })).claimItem;
}

async function coordination(id: string) {
  return (await server.ok(ITEM_COORDINATION, { id })).item;
}

async function historyOf(taskId: string) {
  return (await server.ok(READ_HISTORY, { id: taskId, first: 200 })).task.history.nodes as { action: string; sessionId: string | null; changes: { itemId: string; kind: string; from: string | null; to: string | null }[] }[];
}

describe('claimItem, renewClaim, releaseClaim', () => {
  it('claims for the calling session; another session is refused with CLAIMED naming the holder and the expiry; the holder renews', async () => {
    const domain = freshDomain('claims');
    const { task, items: [item] } = await createTask(server, ['Write the refund handler'], { domain });
    const [a, b] = [await startSession(server), await startSession(server)];

    const claimed = await claim(a, item.id, 60);
    expect(claimed.claim.session.id).toBe(a);
    const life = Date.parse(claimed.claim.expiresAt) - Date.parse(claimed.claim.claimedAt);
    expect(life).toBe(60_000);

    const message = await refusedAndNothingRecorded(server, 'CLAIMED', CLAIM_ITEM, { input: { id: item.id } }, { session: b });
    expect(message).toContain(a);
    expect(message).toContain(claimed.claim.expiresAt);

    // The same session claiming again renews: the claim keeps its start, its expiry moves.
    const again = await claim(a, item.id, 3600);
    expect(again.claim.claimedAt).toBe(claimed.claim.claimedAt);
    expect(Date.parse(again.claim.expiresAt)).toBeGreaterThan(Date.parse(claimed.claim.expiresAt));
    const renewed = (await server.ok(RENEW_CLAIM, { input: { id: item.id, ttlSeconds: 120 } }, { session: a })).renewClaim;
    expect(renewed.claim.session.id).toBe(a);
    expect(Date.parse(renewed.claim.expiresAt)).toBeLessThan(Date.parse(again.claim.expiresAt));

    // Another session renewing holds no claim; releasing another's is CLAIMED; neither records anything.
    expect(await refusedAndNothingRecorded(server, 'NOT_CLAIMED', RENEW_CLAIM, { input: { id: item.id } }, { session: b })).toContain(b);
    await refusedAndNothingRecorded(server, 'CLAIMED', RELEASE_CLAIM, { id: item.id }, { session: b });

    expect((await server.ok(SESSION_CLAIMS, { id: a })).session.claims).toEqual([{ id: item.id, text: item.text }]);
    const released = (await server.ok(RELEASE_CLAIM, { id: item.id }, { session: a })).releaseClaim;
    expect(released.claim).toBeNull();
    expect((await server.ok(SESSION_CLAIMS, { id: a })).session.claims).toEqual([]);
    expect((await claim(b, item.id)).claim.session.id).toBe(b);

    const claimRows = (await historyOf(task.id)).filter((row) => row.action === 'ITEM_CLAIMED' || row.action === 'CLAIM_RELEASED');
    expect(claimRows).toEqual([
      expect.objectContaining({ action: 'ITEM_CLAIMED', sessionId: a, changes: [expect.objectContaining({ itemId: item.id, kind: 'CLAIMED', from: null, to: a })] }),
      expect.objectContaining({ action: 'CLAIM_RELEASED', sessionId: a, changes: [expect.objectContaining({ kind: 'RELEASED', from: a, to: null })] }),
      expect.objectContaining({ action: 'ITEM_CLAIMED', sessionId: b, changes: [expect.objectContaining({ kind: 'CLAIMED', to: b })] }),
    ]);
  });

  it('a person (no session) releases any claim, and the history records that no session did it, and whose claim it was', async () => {
    const { task, items: [item] } = await createTask(server, ['Release me'], { domain: freshDomain('claims') });
    const agent = await startSession(server);
    await claim(agent, item.id);
    expect((await server.ok(RELEASE_CLAIM, { id: item.id })).releaseClaim.claim).toBeNull();
    expect((await coordination(item.id)).claim).toBeNull();
    const [released] = (await historyOf(task.id)).filter((row) => row.action === 'CLAIM_RELEASED');
    expect(released).toMatchObject({ sessionId: null, changes: [{ itemId: item.id, kind: 'RELEASED', from: agent, to: null }] });
    // Released again, where nothing holds: accepted, nothing recorded.
    expect((await server.ok(RELEASE_CLAIM, { id: item.id })).releaseClaim.claim).toBeNull();
    expect((await historyOf(task.id)).filter((row) => row.action === 'CLAIM_RELEASED')).toHaveLength(1);
  });

  it('refuses what cannot be claimed, and records nothing', async () => {
    const { items: [item, done] } = await createTask(server, ['Open work', 'Finished work'], { domain: freshDomain('claims') });
    const agent = await startSession(server);
    await server.ok(UPDATE_WITH_CLAIM, { input: { id: done.id, state: 'DONE' } }, { session: agent });
    for (const ttlSeconds of [3_601, 86_400, 0, -5]) {
      expect(await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', CLAIM_ITEM, { input: { id: item.id, ttlSeconds } }, { session: agent }))
        .toContain('1 to 3600');
    }
    expect(await refusedAndNothingRecorded(server, 'NO_SESSION', CLAIM_ITEM, { input: { id: item.id } })).toContain('x-session-id');
    expect(await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', CLAIM_ITEM, { input: { id: done.id } }, { session: agent })).toContain('DONE');
    await refusedAndNothingRecorded(server, 'NOT_FOUND', CLAIM_ITEM, { input: { id: '999999999' } }, { session: agent });
    await refusedAndNothingRecorded(server, 'NOT_CLAIMED', RENEW_CLAIM, { input: { id: item.id } }, { session: agent });
  });

  it("accepts another session's comment on a claimed item, and its answer names the holder; its state change is fenced", async () => {
    const { items: [item] } = await createTask(server, ['Shared work'], { domain: freshDomain('claims') });
    const [holder, other] = [await startSession(server), await startSession(server)];
    await claim(holder, item.id);
    const answer = (await server.ok(UPDATE_WITH_CLAIM, { input: { id: item.id, comment: 'Looking at it too.' } }, { session: other })).updateItem;
    expect(answer).toMatchObject({ state: 'PENDING', claim: { session: { id: holder } } });
    expect(await refusedAndNothingRecorded(server, 'CLAIMED', UPDATE_WITH_CLAIM, { input: { id: item.id, state: 'IN_PROGRESS' } }, { session: other })).toContain(holder);
  });

  it('ends the claim when the item is settled or deleted, and when its session finishes', async () => {
    const { items: [settled, deleted, kept] } = await createTask(server, ['Settle me', 'Delete me', 'Keep me'], { domain: freshDomain('claims') });
    const agent = await startSession(server);
    for (const item of [settled, deleted, kept]) await claim(agent, item.id);

    await server.ok(UPDATE_WITH_CLAIM, { input: { id: settled.id, state: 'DONE' } }, { session: agent });
    expect((await coordination(settled.id)).claim).toBeNull();
    await server.ok(DELETE_ITEM, { id: deleted.id }, { session: agent });
    expect((await coordination(deleted.id)).claim).toBeNull();
    expect((await server.ok(SESSION_CLAIMS, { id: agent })).session.claims.map((i: { id: string }) => i.id)).toEqual([kept.id]);

    await writeTodos(server, agent, [['Ship the refund handler', 'DONE']]);
    await server.ok(FINISH_SESSION, {}, { session: agent });
    expect((await coordination(kept.id)).claim).toBeNull();
    expect((await server.ok(SESSION_CLAIMS, { id: agent })).session.claims).toEqual([]);
  });

  it('expires by the database clock: after a 10 s lease the item is ready again and another session may claim it', async () => {
    const domain = freshDomain('expiry');
    const { items: [item] } = await createTask(server, ['Lease me briefly'], { domain });
    const [a, b] = [await startSession(server), await startSession(server)];
    const claimed = (await server.ok(CLAIM_NEXT, { domain, ttlSeconds: 10 }, { session: a })).claimNext;
    expect(claimed).toMatchObject({ id: item.id, claim: { session: { id: a } } });
    expect((await server.ok(READY, { domain })).ready).toEqual([]);
    await server.refused(CLAIM_ITEM, { input: { id: item.id } }, { session: b });

    // Wait until the database says the lease is over (no sweeper runs: the row is still there).
    const expiresAt = Date.parse(claimed.claim.expiresAt);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now()) + 1_500));

    expect((await coordination(item.id)).claim).toBeNull();
    expect((await server.ok(READY, { domain })).ready.map((i: { id: string }) => i.id)).toEqual([item.id]);
    expect((await server.ok(SESSION_CLAIMS, { id: a })).session.claims).toEqual([]);
    await refusedAndNothingRecorded(server, 'NOT_CLAIMED', RENEW_CLAIM, { input: { id: item.id } }, { session: a });
    expect((await claim(b, item.id)).claim.session.id).toBe(b);
  }, 30_000);
});
