/**
 * The ready queue is kept as rows by the writes that change it (issue 41:
 * "ready items kept in a form one indexed SKIP LOCKED statement can take"),
 * so every write that changes what is ready must move it: a task moved to
 * another domain, an item moved in its list, an item blocked and unblocked,
 * a claim released, and a claim that lapses with no write at all. Through
 * GraphQL over HTTP, on SQLite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { CLAIM_NEXT, EDIT_TASK, MOVE_ITEM, READY, RELEASE_CLAIM, UPDATE_ITEM } from '../fixtures/documents.js';
import { freshDomain } from '../fixtures/knowledge.js';
import { startSession } from '../fixtures/sessions.js';
import { createTask } from '../fixtures/tasks.js';

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

const readyIds = async (domain: string) => (await server.ok(READY, { domain })).ready.map((item: { id: string }) => item.id) as string[];
const claimNextId = async (domain: string, session: string, ttlSeconds?: number) =>
  ((await server.ok(CLAIM_NEXT, { domain, ttlSeconds }, { session })).claimNext?.id ?? null) as string | null;

describe('the ready queue', () => {
  it('follows a task to its new domain, and an item to its new place in the list', async () => {
    const [from, to] = [freshDomain('readyfrom'), freshDomain('readyto')];
    const { task, items: [a, b, c] } = await createTask(server, ['Draft', 'Review', 'Publish'], { domain: from });
    const session = await startSession(server);
    expect(await claimNextId(to, session)).toBeNull();
    await server.ok(EDIT_TASK, { input: { id: task.id, domain: to } });
    expect(await readyIds(from)).toEqual([]);
    expect(await readyIds(to)).toEqual([a!.id, b!.id, c!.id]);
    await server.ok(MOVE_ITEM, { input: { id: c!.id, after: null } });
    expect(await readyIds(to)).toEqual([c!.id, a!.id, b!.id]);
    expect(await claimNextId(to, session)).toBe(c!.id);
  });

  it('drops a blocked item and takes it back when unblocked; a released claim frees its item at once', async () => {
    const domain = freshDomain('readyblock');
    const { items: [a, b] } = await createTask(server, ['Build', 'Ship'], { domain });
    const session = await startSession(server);
    await server.ok(UPDATE_ITEM, { input: { id: a!.id, state: 'BLOCKED', comment: 'Waiting for the vendor.' } });
    expect(await readyIds(domain)).toEqual([b!.id]);
    await server.ok(UPDATE_ITEM, { input: { id: a!.id, state: 'PENDING' } });
    expect(await readyIds(domain)).toEqual([a!.id, b!.id]);
    expect(await claimNextId(domain, session)).toBe(a!.id);
    expect(await readyIds(domain)).toEqual([b!.id]);
    await server.ok(RELEASE_CLAIM, { id: a!.id }, { session });
    expect(await readyIds(domain)).toEqual([a!.id, b!.id]);
  });

  it('hands out an item again once its claim lapses, with no write in between', async () => {
    const domain = freshDomain('readylapse');
    const { items: [a] } = await createTask(server, ['Rotate the logs'], { domain });
    const [first, second] = [await startSession(server), await startSession(server)];
    expect(await claimNextId(domain, first, 1)).toBe(a!.id);
    expect(await claimNextId(domain, second)).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 1_300));
    expect(await claimNextId(domain, second)).toBe(a!.id);
  });
});
