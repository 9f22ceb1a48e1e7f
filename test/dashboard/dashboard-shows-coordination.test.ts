/**
 * Coordination in the dashboard, in a real browser (Debian's chromium): a
 * claimed item shows its holder and the time left, counted down without
 * asking the server, and a person releases it (history says a person did);
 * what an item waits for and what it blocks, with their states, links and
 * reasons, kept current live; a domain's Ready tab lists the ready queue in
 * the order agents are handed it and drops an item an agent claims; and
 * Maintenance → Webhooks shows a delivered webhook and an inactive one (a
 * dead receiver) with why it stopped, and lets a person create and delete
 * one. axe-core finds nothing critical or serious on each new view, and the
 * CSP is never violated. DASHBOARD_SCREENSHOTS=docs writes docs/dashboard.md's
 * pictures there (a temp folder otherwise).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ADD_TASK_NOTE, CLAIM_ITEM, CLAIM_NEXT, CREATE_NOTE, UPDATE_ITEM } from '../fixtures/documents.js';
import { CREATE_WEBHOOK, WEBHOOKS, startReceiver, type Receiver } from '../fixtures/change-feed.js';
import { brief, freshDomain } from '../fixtures/knowledge.js';
import { startSession } from '../fixtures/sessions.js';
import { createTask } from '../fixtures/tasks.js';
import { axeFindings, dashboardSuite, openPage, whenLive, type WatchedPage, rowAction } from '../fixtures/browser.js';

const SECRET = 'a-shared-secret-of-32-characters';
const { server, browser, base } = dashboardSuite({ env: { TASKBASE_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', TASKBASE_WEBHOOK_BACKOFF_MS: '50', TASKBASE_WEBHOOK_MAX_ATTEMPTS: '2', TASKBASE_WEBHOOK_TIMEOUT_MS: '5000' } });
const receivers: Receiver[] = [];
const shots = process.env.DASHBOARD_SCREENSHOTS ?? fs.mkdtempSync(path.join(os.tmpdir(), 'taskbase-shots-'));
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
  if (!process.env.DASHBOARD_SCREENSHOTS) fs.rmSync(shots, { recursive: true, force: true });
});

async function clean(page: WatchedPage): Promise<void> {
  const found = await axeFindings(page);
  expect(found.rules).toEqual([]);
  expect(found.critical + found.serious).toBe(0);
  expect(page.cspViolations).toEqual([]);
  expect(page.errors).toEqual([]);
}

/** Counts the GraphQL requests the page sends from now on. */
function graphqlRequests(page: WatchedPage): () => number {
  let count = 0;
  page.on('request', (request) => { if (request.url().endsWith('/graphql') && request.method() === 'POST') count += 1; });
  return () => count;
}

async function waits(taskId: string, item: string, on: string, reason?: string) {
  await server.ok(ADD_TASK_NOTE, { input: { taskId, title: 'Order', items: [item], brief: brief({ dependsOn: [{ item: on, reason }] }) } });
}

const HISTORY = 'query($id: ID!) { task(id: $id) { history(first: 5, newestFirst: true) { nodes { action sessionId changes { kind from to } } } } }';

describe('claims on items', () => {
  it('shows the holder and the time left, counts down without asking the server, and lets a person release it', async () => {
    const domain = freshDomain('dash-claims');
    const { task, items: [migrate, review] } = await createTask(server, ['Write the migration', 'Review the schema'], { domain });
    const agent = await startSession(server, { name: 'Migration agent' });
    await server.ok(CLAIM_ITEM, { input: { id: migrate.id, ttlSeconds: 900 } }, { session: agent });
    await server.ok(CLAIM_ITEM, { input: { id: review.id, ttlSeconds: 300 } }, { session: agent });

    const page = await openPage(browser, `${base()}/#/task/${task.id}`);
    const row = page.locator(`#item-${migrate.id}`);
    await row.getByText(/Claimed by/).waitFor();
    // The holder by the name it gave, linked to its session.
    const holder = row.getByRole('link', { name: 'Migration agent', exact: true });
    expect(await holder.getAttribute('href')).toBe(`#/sessions/${agent}`);
    expect(await row.locator('.claim-chip').textContent()).toMatch(/expires in 1[45] min/);

    // The shorter claim counts down to the second in the page, and no request is sent for it.
    await whenLive(page);
    const short = page.locator(`#item-${review.id} .claim-chip time`);
    const first = await short.textContent();
    // Read within a second of the claim, a 5-minute lease still shows its whole 5 min 00 s.
    expect(first).toMatch(/^expires in [1-5] min \d\d s$/);
    const requests = graphqlRequests(page);
    await page.waitForFunction(([selector, before]) => (globalThis as any).document.querySelector(selector)?.textContent !== before, [`#item-${review.id} .claim-chip time`, first] as const);
    expect(await short.textContent()).toMatch(/^expires in [0-4] min \d\d s$/);
    expect(requests()).toBe(0);
    await clean(page);

    await row.getByRole('button', { name: `Release the claim on “${migrate.text}”` }).click();
    await row.getByRole('status').filter({ hasText: `Claim released: “${migrate.text}” is free for the next agent.` }).waitFor();
    await row.locator('.claim-chip').waitFor({ state: 'detached' });
    expect((await server.ok('query($id: ID!) { item(id: $id) { claim { expiresAt } } }', { id: migrate.id })).item.claim).toBeNull();
    // History: the release is a person's (no session), and says whose claim it was.
    const [released] = (await server.ok(HISTORY, { id: task.id })).task.history.nodes;
    expect(released).toMatchObject({ action: 'CLAIM_RELEASED', sessionId: null, changes: [{ kind: 'RELEASED', from: agent, to: null }] });
    await page.locator('.history summary').first().click();
    const event = page.locator('.history ol.events > li').first();
    const summary = event.locator('summary');
    await summary.filter({ hasText: 'claim released' }).waitFor();
    expect(await summary.textContent()).toContain('a person (dashboard)');
    await summary.click();
    await event.locator('.diff').getByText(`${migrate.text}: Migration agent’s claim released`).waitFor();

    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

    // The holder's link opens its session, which lists what it still holds, each a link back to the item.
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.locator(`#item-${review.id}`).waitFor();
    const again = await server.ok(CLAIM_ITEM, { input: { id: migrate.id, ttlSeconds: 1800 } }, { session: agent });
    expect(again.claimItem.claim.session.id).toBe(agent);
    await row.getByRole('link', { name: 'Migration agent', exact: true }).click();
    const held = page.getByRole('region', { name: /Claims held/ });
    await held.getByRole('link', { name: `#1 ${migrate.text}` }).waitFor();
    expect(await held.textContent()).toContain(review.text);
    expect(await held.getByRole('link', { name: `#1 ${migrate.text}` }).getAttribute('href')).toBe(`#/task/${task.id}?item=${migrate.id}`);
    expect(await held.textContent()).toMatch(/expires in (30|29|28) min/);
    await clean(page);
  });
});

describe('dependencies on items', () => {
  it('shows what an item waits for (by a brief or by after), with its state, a link and the reason, and what it blocks; live as the blocker settles', async () => {
    const domain = freshDomain('dash-deps');
    const { task, items: [table, handler, docs] } = await createTask(server, ['Add the refunds table', 'Write the refund handler', 'Document refunds'], { domain });
    await waits(task.id, handler.id, table.id, 'it writes the refunds table');
    // A wait declared without a brief (an agent's task_item after) shows like a brief's.
    await server.ok(UPDATE_ITEM, { input: { id: docs.id, after: [handler.id] } });

    const page = await openPage(browser, `${base()}/#/task/${task.id}`);
    const handlerRow = page.locator(`#item-${handler.id}`);
    await handlerRow.getByText('Waits for unfinished items').waitFor();
    await rowAction(page, handler.text, 'Details');
    const blockedBy = handlerRow.locator('.dependencies div').filter({ hasText: 'Blocked by' });
    await blockedBy.waitFor();
    const link = blockedBy.getByRole('link', { name: `#1 ${table.text}` });
    expect(await link.getAttribute('href')).toBe(`#/task/${task.id}?item=${table.id}`);
    expect(await blockedBy.textContent()).toContain('To do');
    expect(await blockedBy.textContent()).toContain('it writes the refunds table');
    const blocks = handlerRow.locator('.dependencies div').filter({ hasText: 'Blocks' });
    expect(await blocks.getByRole('link', { name: `#3 ${docs.text}` }).getAttribute('href')).toBe(`#/task/${task.id}?item=${docs.id}`);
    await whenLive(page);
    await clean(page);

    // The table is done (by an agent, elsewhere): the handler no longer waits, and its details say Done.
    await server.ok(UPDATE_ITEM, { input: { id: table.id, state: 'DONE' } });
    await handlerRow.getByText('Waits for unfinished items').waitFor({ state: 'detached' });
    await blockedBy.locator('.state.DONE').waitFor();
    expect(await page.locator(`#item-${docs.id}`).getByText('Waits for unfinished items').count()).toBe(1);
  });
});

describe("a domain's Ready tab", () => {
  it('lists the ready queue in order, deep-linked, and drops an item the moment an agent claims it', async () => {
    const domain = freshDomain('dash-ready');
    const older = await createTask(server, ['Pick the queue', 'Wire the worker'], { domain });
    const newer = await createTask(server, ['Write the runbook'], { domain: `${domain}/ops` });
    await waits(older.task.id, older.items[1].id, older.items[0].id, 'needs the queue');
    const expected = [older.items[0].text, newer.items[0].text];

    const page = await openPage(browser, `${base()}/#/domains/${domain}?tab=ready`);
    await page.getByRole('heading', { name: `${domain}: ready` }).waitFor();
    const rows = page.locator('table.ready tbody tr');
    await rows.nth(1).waitFor();
    const texts = async () => (await rows.locator('td:nth-child(2)').allTextContents()).map((text) => text.replace(/^#\d+ /, ''));
    expect(await texts()).toEqual(expected);
    expect(await page.getByRole('link', { name: 'Ready', exact: true }).getAttribute('aria-current')).toBe('page');
    expect(await rows.first().getByRole('link').getAttribute('href')).toBe(`#/task/${older.task.id}?item=${older.items[0].id}`);
    await whenLive(page);
    await clean(page);
    await page.screenshot({ path: path.join(shots, 'dashboard-ready.png') });

    // An agent takes the next item: it leaves the list without a reload.
    const agent = await startSession(server);
    const taken = (await server.ok(CLAIM_NEXT, { domain }, { session: agent })).claimNext;
    expect(taken.text).toBe(expected[0]);
    await page.waitForFunction((count) => (globalThis as any).document.querySelectorAll('table.ready tbody tr').length === count, 1);
    expect(await texts()).toEqual([expected[1]]);

    // The Tasks tab is one link away, and back.
    await page.getByRole('link', { name: 'Tasks and notes', exact: true }).click();
    await page.getByRole('row', { name: new RegExp(older.task.title) }).waitFor();
  });
});

describe('Maintenance → Webhooks', () => {
  it('shows a delivered webhook and an inactive one with why it stopped; a person creates one (the 16-character rule explained) and deletes one', async () => {
    const domain = freshDomain('dash-hooks');
    const live = await startReceiver(() => ({ status: 204 }));
    receivers.push(live);
    const dead = await startReceiver(() => ({ status: 204 }));
    const deadUrl = dead.url;
    await dead.close();
    const deadId = (await server.ok(CREATE_WEBHOOK, { input: { url: deadUrl, domain, secret: SECRET } })).createWebhook.id;

    const page = await openPage(browser, `${base()}/#/maintenance/webhooks`);
    await page.getByRole('heading', { name: 'Webhooks', level: 2 }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Maintenance', exact: true }).getAttribute('aria-current')).toBe('page');

    // A person creates one: a short secret is refused beside the button, in words that say what to send.
    await page.getByLabel('URL (http or https)').fill(live.url);
    await page.getByLabel(/^Domain/).fill(domain);
    await page.getByLabel('Secret (at least 16 characters)').fill('too-short');
    expect(await page.locator('#secret-help').textContent()).toContain('9 of 16 so far');
    await page.getByRole('button', { name: 'Create webhook' }).click();
    const refusal = page.locator('.create-webhook .refusal[role=alert]');
    await refusal.waitFor();
    expect(await refusal.textContent()).toMatch(/16/);
    expect((await server.ok(WEBHOOKS, { first: 1 })).webhooks).toHaveLength(1);
    await page.getByLabel('Secret (at least 16 characters)').fill(SECRET);
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await page.getByRole('status').filter({ hasText: `Webhook created for ${live.url}.` }).waitFor();

    // A change under the domain: delivered to the live receiver; the dead one fails twice and goes inactive.
    await server.ok(CREATE_NOTE, { input: { title: 'Refund policy', body: 'b', domain } });
    await live.until(1);
    const liveCard = page.getByRole('listitem', { name: `Webhook ${live.url}` });
    await liveCard.getByText(/Delivered \(HTTP 204\)/).waitFor({ timeout: 15_000 });
    expect(await liveCard.locator('.badge.active').textContent()).toBe('Active');
    const deadCard = page.getByRole('listitem', { name: `Webhook ${deadUrl}` });
    await deadCard.locator('.badge.inactive').waitFor({ timeout: 15_000 });
    const stopped = await deadCard.locator('.stopped').textContent();
    expect(stopped).toMatch(/failed all 2 attempts; the last got no answer \(could not deliver \(ECONNREFUSED\)\)/);
    expect(await deadCard.locator('tbody tr').first().textContent()).toMatch(/Gave up \(no answer\).*2.*ECONNREFUSED/);
    const [hook] = (await server.ok(WEBHOOKS, { first: 1 })).webhooks.filter((each: { id: string }) => each.id === deadId);
    expect(hook.active).toBe(false);
    await clean(page);
    await page.screenshot({ path: path.join(shots, 'dashboard-webhooks.png'), fullPage: true });

    // Deleting asks once more, then the webhook is gone.
    await deadCard.getByRole('button', { name: `Delete the webhook for ${deadUrl}` }).click();
    await deadCard.getByRole('button', { name: 'Yes, delete it' }).click();
    await deadCard.waitFor({ state: 'detached' });
    expect((await server.ok(WEBHOOKS, { first: 1 })).webhooks.map((each: { url: string }) => each.url)).toEqual([live.url]);

    const dark = await openPage(browser, `${base()}/#/maintenance/webhooks`, { dark: true, width: 390, height: 844 });
    await dark.getByRole('listitem', { name: `Webhook ${live.url}` }).waitFor();
    expect(await dark.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await clean(dark);
  });
});
