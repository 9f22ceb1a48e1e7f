/**
 * The inbox of stuck work (stuckItems): every BLOCKED or FAILED item of every
 * task and every plan, running or finished, with no cap, keyset-paged with a
 * true count, each row saying why (the item's note), who set it and since
 * when, and who holds it now.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { CLAIM_ITEM, FINISH_SESSION, SET_PLAN, UPDATE_ITEM, UPDATE_STEP } from '../fixtures/documents.js';
import { startSession } from '../fixtures/sessions.js';

const STUCK = `query($domain: String, $first: Int, $after: String) { stuckItems(domain: $domain, first: $first, after: $after) {
  totalCount pageInfo { hasNextPage endCursor }
  nodes { since setByKnown setBy { id } item { id text state note claim { session { id } } } task { id title domain session { id finishedAt } } } } }`;

interface Row { since: string; setByKnown: boolean; setBy: { id: string } | null; item: { id: string; text: string; state: string; note: string | null; claim: { session: { id: string } } | null }; task: { id: string; title: string; domain: string | null; session: { id: string; finishedAt: string | null } | null } }

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

/** Every row of the inbox, page by page (`first` each), checking each page's count and cursor on the way. */
async function readAll(domain: string | null, first: number): Promise<{ rows: Row[]; totalCount: number; pages: number }> {
  const rows: Row[] = [];
  let after: string | null = null;
  let totalCount = -1;
  let pages = 0;
  for (;;) {
    const page: { totalCount: number; pageInfo: { hasNextPage: boolean; endCursor: string }; nodes: Row[] } = (await server.ok(STUCK, { domain, first, after })).stuckItems;
    pages += 1;
    if (totalCount === -1) totalCount = page.totalCount;
    expect(page.totalCount).toBe(totalCount);
    rows.push(...page.nodes);
    if (!page.pageInfo.hasNextPage) return { rows, totalCount, pages };
    after = page.pageInfo.endCursor;
  }
}

describe('the inbox of stuck work', () => {
  it('lists every stuck item of tasks and plans, past any cap, with its reason, who set it and who holds it', async () => {
    // 230 stuck tasks in one top-level domain: more than the 200 newest a domain's mustRead shows.
    const taskIds: string[] = [];
    for (let batch = 0; batch < 5; batch += 1) {
      const fields = Array.from({ length: 46 }, (_, i) => `t${i}: createTask(input: { title: "Stuck ${batch * 46 + i}", goal: "g", domain: "fleet/big", items: ["Wait on vendor", "Other work"] }) { items { id } }`);
      const made = await server.ok(`mutation { ${fields.join(' ')} }`);
      const firstItems = Object.values(made).map((created: any) => created.items[0].id as string);
      const updates = firstItems.map((id, i) => `u${i}: updateItem(input: { id: "${id}", state: ${i % 2 ? 'FAILED' : 'BLOCKED'}, comment: "Vendor API is down" }) { id }`);
      await server.ok(`mutation { ${updates.join(' ')} }`);
      taskIds.push(...firstItems);
    }

    // One blocked by an agent's session, and claimed by another session.
    const agent = await startSession(server, { name: 'billing agent' });
    const other = await server.ok('mutation { createTask(input: { title: "Refunds", goal: "g", domain: "fleet/small/refunds", items: ["Reconcile the ledger", "Ship"] }) { items { id } } }');
    const ledger = other.createTask.items[0].id as string;
    const holder = await startSession(server, { name: 'helper' });
    await server.ok(CLAIM_ITEM, { input: { id: ledger } }, { session: holder });
    // Claims fence: another session changes a claimed item only with force and a reason.
    await server.ok(UPDATE_ITEM, { input: { id: ledger, state: 'BLOCKED', comment: 'Ledger export missing', force: true } }, { session: agent });

    // A running session's plan with a blocked step, and a finished one that left a step blocked.
    const running = await startSession(server, { name: 'deploy agent' });
    await server.ok(SET_PLAN, { steps: ['Build', 'Deploy to staging'] }, { session: running });
    await server.ok(UPDATE_STEP, { input: { step: 2, state: 'BLOCKED', note: 'Staging is frozen' } }, { session: running });
    const finished = await startSession(server, { name: 'docs agent' });
    await server.ok(SET_PLAN, { steps: ['Write the page', 'Publish it'] }, { session: finished });
    await server.ok(UPDATE_STEP, { input: { step: 1, state: 'DONE', note: 'Written' } }, { session: finished });
    await server.ok(UPDATE_STEP, { input: { step: 2, state: 'BLOCKED', note: 'Needs a reviewer' } }, { session: finished });
    await server.ok(FINISH_SESSION, {}, { session: finished });

    const all = await readAll(null, 100);
    expect(all.totalCount).toBe(230 + 1 + 2);
    expect(all.rows).toHaveLength(all.totalCount);
    expect(all.pages).toBe(3);
    expect(new Set(all.rows.map((row) => row.item.id)).size).toBe(all.rows.length);
    const since = all.rows.map((row) => row.since);
    expect(since).toEqual([...since].sort().reverse());
    for (const id of taskIds) expect(all.rows.some((row) => row.item.id === id), `item ${id}`).toBe(true);

    const byText = (text: string) => all.rows.find((row) => row.item.text === text)!;
    expect(byText('Reconcile the ledger')).toMatchObject({
      setByKnown: true, setBy: { id: agent },
      item: { state: 'BLOCKED', note: 'Ledger export missing', claim: { session: { id: holder } } },
      task: { title: 'Refunds', domain: 'fleet/small/refunds', session: null },
    });
    expect(byText('Deploy to staging')).toMatchObject({ item: { note: 'Staging is frozen' }, task: { domain: null, session: { id: running, finishedAt: null } } });
    expect(byText('Publish it')).toMatchObject({ item: { note: 'Needs a reviewer' }, task: { session: { id: finished, finishedAt: expect.any(String) } } });
    // A person (no session) set the vendor items: the change log says so.
    expect(all.rows.find((row) => row.task.title === 'Stuck 0')).toMatchObject({ setByKnown: true, setBy: null, item: { note: 'Vendor API is down' } });

    // A domain's inbox is its tasks' (and those under it); plans have no domain.
    const small = await readAll('fleet/small', 50);
    expect(small.rows.map((row) => row.item.text)).toEqual(['Reconcile the ledger']);
    expect((await readAll('fleet', 200)).totalCount).toBe(231);

    // Settling an item takes it out, and the count follows.
    await server.ok(UPDATE_ITEM, { input: { id: taskIds[0], state: 'DONE', comment: 'Vendor is back' } });
    expect((await server.ok(STUCK, { first: 1 })).stuckItems.totalCount).toBe(232);
  });

  it('refuses a page size past 200, a cursor of another list and a malformed domain, in words that say what to send', async () => {
    expect(await server.refused(STUCK, { first: 201 })).toMatchObject({ code: 'TOO_LARGE', message: expect.stringMatching(/at most 200/) });
    expect(await server.refused(STUCK, { after: 'bm90IGEgY3Vyc29y' })).toMatchObject({ code: 'BAD_USER_INPUT', message: expect.stringMatching(/pageInfo\.endCursor/) });
    expect(await server.refused(STUCK, { domain: 'Fleet' })).toMatchObject({ code: 'INVALID_DOMAIN', message: expect.stringMatching(/Did you mean "fleet"/) });
  });
});
