/**
 * The dashboard's triage views in a real browser (Debian's chromium), on one
 * server whose database starts empty: the first run shows how to connect an
 * agent; a domain's task table, most recently updated first, leads with the
 * task an agent just changed, and its view (sort, state, board) lives in the
 * address; the state menu records nothing while the keyboard moves through
 * it and exactly one change on a choice, with a reason the row shows; a
 * half-open socket stops "● Live" within 15 s. axe-core finds nothing
 * critical or serious. DASHBOARD_SCREENSHOTS=docs writes the screenshots
 * there (a temp folder otherwise).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLAIM_ITEM, READ_HISTORY, UPDATE_ITEM } from '../fixtures/documents.js';
import { freshDomain } from '../fixtures/knowledge.js';
import { startSession } from '../fixtures/sessions.js';
import { createTask, readTask } from '../fixtures/tasks.js';
import { axeFindings, chooseState, dashboardSuite, openPage, stateButton, stateOf, whenLive } from '../fixtures/browser.js';

// Evaluated in the page, not in Node.
declare const document: { activeElement: { textContent: string | null; id: string } | null };

const { server, browser, base } = dashboardSuite();
const shots = process.env.DASHBOARD_SCREENSHOTS ?? fs.mkdtempSync(path.join(os.tmpdir(), 'taskbase-shots-'));
afterAll(() => { if (!process.env.DASHBOARD_SCREENSHOTS) fs.rmSync(shots, { recursive: true, force: true }); });

async function historyCount(taskId: string): Promise<number> {
  return (await server.ok(READ_HISTORY, { id: taskId, first: 1 })).task.history.totalCount;
}

async function expectAxeClean(page: import('playwright-core').Page): Promise<void> {
  const found = await axeFindings(page);
  expect(found.rules).toEqual([]);
  expect(found.critical + found.serious).toBe(0);
}

describe('triage views', () => {
  // First: the file's database is still empty.
  it('shows an empty database how to connect an agent, write a task or load the demo', async () => {
    const page = await openPage(browser, `${base()}/`, { width: 1280, height: 800 });
    await page.getByRole('heading', { name: 'Nothing here yet' }).waitFor();
    const command = await page.locator('.first-run code').first().innerText();
    expect(command).toBe(`claude mcp add --transport http taskbase "${base()}/mcp?tools=whole-list,knowledge-base"`);
    expect(await page.getByRole('button', { name: 'Copy' }).count()).toBe(2);
    expect(await page.locator('.first-run').getByRole('button', { name: 'New task' }).getAttribute('href')).toBe('#/new-task');
    expect(await page.locator('.copy-line code').nth(1).innerText()).toBe('npm run seed');
    await expectAxeClean(page);
    await page.screenshot({ path: path.join(shots, 'dashboard-first-run.png'), fullPage: true });
    expect(page.errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('sorts a domain by update, so the task an agent just changed is the first row, and keeps the view in the address', async () => {
    const domain = freshDomain('triage');
    const made = [];
    for (const title of ['Rotate the keys', 'Move the queue', 'Trim the logs', 'Index the orders']) {
      made.push(await createTask(server, ['First step', 'Second step'], { domain, title }));
    }
    await server.ok(UPDATE_ITEM, { input: { id: made[3].items[0].id, state: 'BLOCKED', comment: 'waiting for the DBA' } });
    const page = await openPage(browser, `${base()}/#/domains/${domain}`, { width: 1280, height: 800 });
    await whenLive(page);
    const titles = () => page.locator('table.tasks tbody tr td:first-child a').allInnerTexts();
    await expect.poll(titles).toEqual(['Index the orders', 'Trim the logs', 'Move the queue', 'Rotate the keys']);

    // An agent moves the oldest task on: it leads the table, live.
    const agent = await startSession(server, { name: 'Key agent' });
    await server.ok(UPDATE_ITEM, { input: { id: made[0].items[0].id, state: 'IN_PROGRESS' } }, { session: agent });
    await expect.poll(titles, { timeout: 5000 }).toEqual(['Rotate the keys', 'Index the orders', 'Trim the logs', 'Move the queue']);
    await expectAxeClean(page);
    await page.screenshot({ path: path.join(shots, 'dashboard-domain-table.png'), fullPage: true });

    // Only the stuck ones, then a board by state: each in the address, so a reload (or a shared link) shows the same.
    await page.getByRole('combobox', { name: /^Only/ }).selectOption('STUCK');
    await expect.poll(titles).toEqual(['Index the orders']);
    expect(page.url()).toContain('show=STUCK');
    await page.getByRole('link', { name: 'Board' }).click();
    await page.locator('.board').waitFor();
    expect(page.url()).toMatch(/show=STUCK&view=board|view=board.*show=STUCK/);
    await page.reload();
    await page.locator('.board .lane').first().waitFor();
    expect(await page.locator('.board h3').allInnerTexts()).toEqual(['Stuck (1)']);
    await page.getByRole('combobox', { name: /^Only/ }).selectOption('ALL');
    await expect.poll(() => page.locator('.board h3').allInnerTexts()).toEqual(['Stuck (1)', 'Doing (1)', 'To do (2)']);
    expect(await page.locator('.lane-DOING .card a').innerText()).toBe('Rotate the keys');
    await expectAxeClean(page);
    await page.screenshot({ path: path.join(shots, 'dashboard-board.png'), fullPage: true });
    expect(page.errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('sorts and groups a domain by who holds claims on its tasks, from Task.claimedBy', async () => {
    const domain = freshDomain('held');
    const free = await createTask(server, ['Nobody on it'], { domain, title: 'Free task' });
    const byZed = await createTask(server, ['Zed works here'], { domain, title: 'Held by Zed' });
    const byAda = await createTask(server, ['Ada works here', 'Ada again'], { domain, title: 'Held by Ada' });
    const ada = await startSession(server, { name: 'Ada' });
    const zed = await startSession(server, { name: 'Zed' });
    await server.ok(CLAIM_ITEM, { input: { id: byZed.items[0].id } }, { session: zed });
    await server.ok(CLAIM_ITEM, { input: { id: byAda.items[0].id } }, { session: ada });
    await server.ok(CLAIM_ITEM, { input: { id: byAda.items[1].id } }, { session: ada });
    // The server says who holds each task, once per holder.
    const held = await server.ok(`query($d: String!) { memories(domain: $d, kind: TASK, first: 10) { nodes { id ... on Task { claimedBy { id name } } } } }`, { d: domain });
    const holders = Object.fromEntries(held.memories.nodes.map((task: any) => [task.id, task.claimedBy.map((session: any) => session.name)]));
    expect(holders).toEqual({ [free.task.id]: [], [byZed.task.id]: ['Zed'], [byAda.task.id]: ['Ada'] });

    const page = await openPage(browser, `${base()}/#/domains/${domain}?sort=claimed`, { width: 1280, height: 800 });
    await page.locator('table.tasks tbody tr').nth(2).waitFor();
    expect(await page.locator('table.tasks tbody tr td:first-child a').allTextContents()).toEqual(['Held by Ada', 'Held by Zed', 'Free task']);
    await page.getByLabel('Group by claimed by').check();
    await page.waitForURL(/group=claimed/);
    expect(await page.locator('table.tasks .group-row th').allTextContents()).toEqual(['Ada (1)', 'Zed (1)', 'Not claimed (1)']);
    await expectAxeClean(page);
  });

  it('at 390 px puts a domain\'s tasks first, fits Agents now, the inbox and Activity with their first row on screen, and keeps touch targets at least 24 px', async () => {
    const domain = freshDomain('phone');
    const { task } = await createTask(server, ['First step', 'Second step'], { domain, title: 'Phone task' });
    const page = await openPage(browser, `${base()}/#/domains/${domain}`, { width: 390, height: 844 });
    const row = page.getByRole('link', { name: 'Phone task' });
    await row.waitFor();
    const top = (await row.boundingBox())!.y;
    expect(top, 'the first task is on the first screen').toBeLessThan(844);
    const small = async () => page.evaluate(() => [...(globalThis as any).document.querySelectorAll('main button, main select, main input, main [role="menuitem"], table.tasks a')]
      .map((el: any) => ({ el, box: el.getBoundingClientRect() })).filter(({ box }: any) => box.width > 0 && (box.height < 24 || box.width < 24))
      .map(({ el, box }: any) => `${el.tagName} ${el.getAttribute('aria-label') ?? el.textContent?.trim().slice(0, 30)} ${Math.round(box.width)}x${Math.round(box.height)}`));
    expect(await small()).toEqual([]);
    await page.goto(`${base()}/#/task/${task.id}`);
    await page.getByRole('button', { name: 'Actions for “First step”' }).click();
    await page.getByRole('menu', { name: 'Actions for “First step”' }).waitFor();
    expect(await small()).toEqual([]);

    // Agents now, the inbox and Activity, each with a working agent that holds a claim and a blocked step: no sideways
    // scroll, the first row on the first screen, and every link and control at least 24 px.
    const agent = await startSession(server, { name: 'Phone agent' });
    await server.ok(CLAIM_ITEM, { input: { id: task.items.nodes[0].id, ttlSeconds: 600 } }, { session: agent });
    await server.ok(UPDATE_ITEM, { input: { id: task.items.nodes[1].id, state: 'BLOCKED', comment: 'waiting for the phone build to be signed by release engineering' } }, { session: agent });
    const targets = async () => page.evaluate(() => [...(globalThis as any).document.querySelectorAll('main a, main button, main select, main input, main summary, main [role="menuitem"]')]
      .map((el: any) => ({ el, box: el.getBoundingClientRect() })).filter(({ box }: any) => box.width > 0 && (box.height < 24 || box.width < 24))
      .map(({ el, box }: any) => `${el.tagName} ${el.getAttribute('aria-label') ?? el.textContent?.trim().slice(0, 30)} ${Math.round(box.width)}x${Math.round(box.height)}`));
    for (const [hash, first] of [['#/agents', 'table.agents-table tbody tr'], ['#/attention', 'table.stuck-inbox tbody tr'], [`#/activity?domain=${domain}`, '.activity-rows li']] as const) {
      await page.goto(`${base()}/${hash}`);
      await whenLive(page);
      const firstRow = page.locator(first).first();
      await firstRow.waitFor();
      expect((await firstRow.boundingBox())!.y, `${hash}: the first row is on the first screen`).toBeLessThan(844);
      expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth), `${hash} fits 390 px`).toBeLessThanOrEqual(390);
      expect(await targets(), `${hash}: touch targets of at least 24 px`).toEqual([]);
      await expectAxeClean(page);
    }
  }, 60_000);

  it('lists the ready items of every domain in one queue, oldest task first, from the navigation', async () => {
    const first = await createTask(server, ['Pick the region', 'Order the hardware'], { domain: freshDomain('alpha'), title: 'Open the office' });
    const second = await createTask(server, ['Draft the survey'], { domain: freshDomain('beta'), title: 'Ask the customers' });
    await server.ok(UPDATE_ITEM, { input: { id: first.items[1].id, state: 'BLOCKED', comment: 'no budget yet' } });
    const page = await openPage(browser, `${base()}/#/domains`, { width: 1280, height: 800 });
    await page.getByRole('link', { name: 'Ready queue' }).click();
    await page.getByRole('heading', { name: /^Ready/ }).waitFor();
    const rows = () => page.locator('table.ready tbody tr td:first-child').allInnerTexts();
    await expect.poll(rows).toEqual(expect.arrayContaining(['#1 Pick the region', '#1 Draft the survey']));
    const texts = await rows();
    expect(texts.indexOf('#1 Pick the region')).toBeLessThan(texts.indexOf('#1 Draft the survey'));
    expect(texts).not.toContain('#2 Order the hardware');
    expect(await page.locator('table.ready tbody tr', { hasText: 'Draft the survey' }).locator('td').nth(2).innerText()).toBe(second.task.domain);
    // An agent's claim takes an item off, live.
    const agent = await startSession(server, { name: 'Survey agent' });
    await server.ok(CLAIM_ITEM, { input: { id: second.items[0].id, ttlSeconds: 600 } }, { session: agent });
    await expect.poll(rows, { timeout: 5000 }).not.toContain('#1 Draft the survey');
    await expectAxeClean(page);
    expect(page.errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('records nothing while the keyboard moves through the state menu, then exactly one change; a reason shows in the row', async () => {
    const domain = freshDomain('menu');
    const { task, items } = await createTask(server, ['Ship the fix', 'Write the notes'], { domain, title: 'Release 2.1' });
    const before = await historyCount(task.id);
    const page = await openPage(browser, `${base()}/#/task/${task.id}`, { width: 1280, height: 800 });
    await whenLive(page);
    const button = stateButton(page, 'Ship the fix');
    await button.focus();
    await page.keyboard.press('Enter');
    const menu = page.getByRole('menu', { name: 'State of “Ship the fix”' });
    await menu.waitFor();
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('To do');
    await expectAxeClean(page);
    await page.screenshot({ path: path.join(shots, 'dashboard-state-menu.png') });
    // Down to Blocked and back up to Done: nothing is recorded on the way.
    for (const key of ['ArrowDown', 'ArrowDown', 'ArrowDown', 'ArrowDown', 'ArrowUp', 'ArrowUp']) await page.keyboard.press(key);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Done');
    await page.waitForTimeout(300);
    expect(await historyCount(task.id)).toBe(before);
    // Escape closes it, records nothing and puts focus back on the button.
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'detached' });
    expect(await page.evaluate(() => document.activeElement?.id)).toBe(`state-${items[0].id}`);
    expect(await historyCount(task.id)).toBe(before);
    // Again, and Enter on Done: exactly one change.
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await expect.poll(() => stateOf(page, 'Ship the fix')).toBe('DONE');
    await expect.poll(() => historyCount(task.id)).toBe(before + 1);
    await page.waitForTimeout(300);
    expect(await historyCount(task.id)).toBe(before + 1);
    expect((await readTask(server, task.id)).items.nodes.map((item) => item.state)).toEqual(['DONE', 'PENDING']);

    // Blocked asks why (optional); the reason is recorded with the one change and shown in the row.
    await chooseState(page, 'Write the notes', 'BLOCKED', 'waiting for the release number');
    await expect.poll(() => page.locator(`#item-${items[1].id} .stuck-label`).innerText()).toBe('Stuck — blocked: waiting for the release number');
    expect(await historyCount(task.id)).toBe(before + 2);
    // Dropped without a reason says so in its row.
    await chooseState(page, 'Write the notes', 'DROPPED');
    await expect.poll(() => page.locator(`#item-${items[1].id} .note-line`).innerText()).toMatch(/^Dropped — /);
    // A reorder is said to a screen reader, not only seen.
    await stateButton(page, 'Ship the fix').focus();
    await page.keyboard.press('Alt+ArrowDown');
    await expect.poll(() => page.locator('#announcer').innerText()).toBe('Moved “Ship the fix” down to place 2 of 2');
    expect(page.errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('keeps an unsaved Reminders edit when the settings change elsewhere, and follows the fields not edited', async () => {
    const page = await openPage(browser, `${base()}/#/maintenance/reminders`, { width: 1280, height: 800 });
    await whenLive(page);
    const interval = page.getByLabel('Interval (minutes, 1–1440)');
    const enabled = page.getByLabel('Send reminders');
    await interval.fill('45');
    const before = await enabled.isChecked();
    await server.ok('mutation($enabled: Boolean) { updateReminderSettings(enabled: $enabled) { enabled } }', { enabled: !before });
    await expect.poll(() => enabled.isChecked(), { timeout: 5000 }).toBe(!before);
    expect(await interval.inputValue()).toBe('45');
    await page.getByRole('button', { name: 'Save reminder settings' }).click();
    await page.getByText('Saved.').waitFor();
    expect((await server.ok('{ reminderSettings { enabled intervalMinutes } }')).reminderSettings).toEqual({ enabled: !before, intervalMinutes: 45 });
    expect(page.errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('stops saying "● Live" within 15 s of the socket going silent', async () => {
    const page = await openPage(browser, 'about:blank', { width: 1280, height: 800 });
    let silent = false;
    // The socket stays open but carries nothing either way: a half-open connection, as when a laptop's network drops.
    await page.routeWebSocket(/\/graphql$/, (socket) => {
      const upstream = socket.connectToServer();
      socket.onMessage((message) => { if (!silent) upstream.send(message); });
      upstream.onMessage((message) => { if (!silent) socket.send(message); });
    });
    await page.goto(`${base()}/#/domains`);
    await whenLive(page);
    silent = true;
    const cut = Date.now();
    await page.locator('.live-badge:not([data-live="live"])').waitFor({ timeout: 15_000 });
    const noticed = Date.now() - cut;
    console.log(`half-open socket noticed after ${noticed} ms`);
    expect(noticed).toBeLessThan(15_000);
    // Back: the page reconnects and says "● Live" again.
    silent = false;
    await whenLive(page);
    expect(page.errors).toEqual([]);
    await page.close();
  }, 60_000);
});
