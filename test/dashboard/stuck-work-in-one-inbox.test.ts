/**
 * The inbox of stuck work (stuckItems): every BLOCKED or FAILED item of every
 * task and every plan, running or finished, with no cap, keyset-paged with a
 * true count, each row saying why (the item's note), who set it and since
 * when, and who holds it now; in the dashboard (Debian's chromium), each row's
 * state menu records nothing while a person moves through it and exactly one
 * change when they choose.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { CLAIM_ITEM, FINISH_SESSION, SET_PLAN, UPDATE_ITEM, UPDATE_STEP } from '../fixtures/documents.js';
import { axeFindings, launchBrowser, openPage, stateButton, whenLive } from '../fixtures/browser.js';
import { readHistory } from '../fixtures/history.js';
import { freshDomain } from '../fixtures/knowledge.js';
import { startSession } from '../fixtures/sessions.js';
import { createTask } from '../fixtures/tasks.js';

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

describe('the inbox in the dashboard', () => {
  it('moves through a row\'s state menu with the keyboard recording nothing, then records exactly the one state chosen', async () => {
    const domain = freshDomain('inbox');
    const { task, items: [vendor] } = await createTask(server, ['Wait on the vendor', 'Other work'], { domain, title: 'Vendor rollout' });
    await server.ok(UPDATE_ITEM, { input: { id: vendor.id, state: 'BLOCKED', comment: 'Vendor API is down' } });
    const before = (await readHistory(server, task.id, 200)).length;
    const browser = await launchBrowser();
    try {
      const page = await openPage(browser, `${server.url.replace(/\/graphql$/, '')}/#/attention`);
      await whenLive(page);
      const button = stateButton(page, 'Wait on the vendor');
      await button.waitFor();
      expect(await button.getAttribute('aria-haspopup')).toBe('menu');
      // ArrowDown opens the menu on the recorded state; Up, Down, End, Home and a letter move through it.
      await button.focus();
      await page.keyboard.press('ArrowDown');
      const menu = page.getByRole('menu', { name: 'State of “Wait on the vendor”' });
      await menu.waitFor();
      expect(await menu.locator(':focus').textContent()).toBe('Blocked…');
      for (const key of ['ArrowUp', 'ArrowUp', 'ArrowUp', 'ArrowDown', 'End', 'Home', 'f', 'd', 'd']) await page.keyboard.press(key);
      expect(await menu.locator(':focus').textContent()).toBe('Done');
      // Escape closes it, on the button, with nothing recorded.
      await page.keyboard.press('Escape');
      await menu.waitFor({ state: 'detached' });
      expect(await button.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
      expect((await readHistory(server, task.id, 200)).length, 'moving through the menu records nothing').toBe(before);
      expect((await server.ok('query($id: ID!) { item(id: $id) { state } }', { id: vendor.id })).item.state).toBe('BLOCKED');

      // Opened again: two steps up from Blocked is Done; Enter records it, once.
      await page.keyboard.press('ArrowDown');
      await menu.waitFor();
      await page.keyboard.press('ArrowUp');
      await page.keyboard.press('ArrowUp');
      expect(await menu.locator(':focus').textContent()).toBe('Done');
      expect((await readHistory(server, task.id, 200)).length).toBe(before);
      await page.keyboard.press('Enter');
      // Settled, the item leaves the inbox.
      await button.waitFor({ state: 'detached' });
      const after = await readHistory(server, task.id, 200);
      expect(after.length, 'one choice, one change').toBe(before + 1);
      expect(after.at(-1)!.items.find((item) => item.id === vendor.id)!.state).toBe('DONE');
      expect((await server.ok('query($id: ID!) { item(id: $id) { state } }', { id: vendor.id })).item.state).toBe('DONE');
      expect((await axeFindings(page)).rules, 'axe-core on Needs attention').toEqual([]);
      expect(page.errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
