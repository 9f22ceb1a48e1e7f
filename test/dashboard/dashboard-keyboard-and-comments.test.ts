/**
 * The dashboard by keyboard, and a task's comments past one page (issue 18
 * points 1 and 7): shortcuts for the common actions listed under `?`, focus
 * kept inside dialogs and given back after, moves announced; and a task with
 * more comments than a page reaches its last one.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { axeFindings, dashboardSuite, openPage, stateButton, stateOf } from '../fixtures/browser.js';
import { CREATE_TASK } from '../fixtures/documents.js';

// Evaluated in the page, not in Node.
declare const document: { activeElement: { id?: string; tagName: string; closest(selector: string): unknown; textContent: string | null } | null; getElementById(id: string): { textContent: string | null } | null };
declare const location: { hash: string };

const { server, browser, base } = dashboardSuite({ timeout: 180_000 });

const announced = (page: Page) => page.evaluate(() => document.getElementById('announcer')?.textContent ?? '');
const focusInDialog = (page: Page) => page.evaluate(() => Boolean(document.activeElement?.closest('[role="dialog"]')));

describe('keyboard shortcuts', () => {
  it('j / k move through the items and say where they are, o opens one, x marks it done, / searches, g s goes to Sessions', async () => {
    const made = await server.ok(CREATE_TASK, { input: { title: 'Keyboard task', goal: 'Work it by keys', domain: 'keys/one', items: ['Read the code', 'Fix the parser', 'Run the tests'] } });
    const [, second] = made.createTask.items;
    const page = await openPage(browser, `${base()}/#/task/${made.createTask.task.id}`);
    await stateButton(page, 'Read the code').waitFor();
    await page.locator('body').click({ position: { x: 5, y: 5 } });

    await page.keyboard.press('j');
    await expect.poll(() => announced(page), { timeout: 15_000 }).toBe('1 of 3: Read the code — To do');
    await page.keyboard.press('j');
    await expect.poll(() => announced(page), { timeout: 15_000 }).toBe('2 of 3: Fix the parser — To do');
    expect(await page.locator('.checklist > li.kbd-current .text').textContent()).toBe('Fix the parser');
    await page.keyboard.press('j');
    await page.keyboard.press('k');
    await expect.poll(() => announced(page), { timeout: 15_000 }).toBe('2 of 3: Fix the parser — To do');

    await page.keyboard.press('x');
    await expect.poll(async () => (await server.ok(`query($id: ID!) { item(id: $id) { state } }`, { id: second.id })).item.state, { timeout: 15_000 }).toBe('DONE');
    await expect.poll(() => announced(page), { timeout: 15_000 }).toBe('Marked Fix the parser Done');
    await page.keyboard.press('o');
    await page.locator(`#item-${second.id} .details`).waitFor();

    await page.keyboard.press('/');
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('INPUT');
    // A key typed into a field is the field's.
    await page.keyboard.type('gs');
    expect(await page.evaluate(() => location.hash)).toBe(`#/task/${made.createTask.task.id}`);
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('g');
    await page.keyboard.press('s');
    await page.getByRole('heading', { name: /^Sessions/ }).waitFor();
    expect(await page.evaluate(() => location.hash)).toBe('#/sessions');
  }, 180_000);

  it('? lists the shortcuts in a dialog that keeps focus inside and gives it back on Escape', async () => {
    const page = await openPage(browser, `${base()}/#/domains`);
    await page.getByRole('link', { name: 'Sessions' }).focus();
    await page.keyboard.press('?');
    const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await dialog.waitFor();
    expect(await dialog.locator('tbody tr').count()).toBeGreaterThanOrEqual(10);
    expect(await dialog.textContent()).toContain('Mark the current checklist item done');
    expect(await focusInDialog(page)).toBe(true);
    for (let i = 0; i < 4; i += 1) {
      await page.keyboard.press('Tab');
      expect(await focusInDialog(page), `Tab ${i + 1} stays in the dialog`).toBe(true);
    }
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Shift+Tab');
    expect(await focusInDialog(page)).toBe(true);
    // Shortcuts wait while a dialog is open.
    await page.keyboard.press('g');
    await page.keyboard.press('a');
    expect(await page.evaluate(() => location.hash)).toBe('#/domains');
    const axe = await axeFindings(page);
    expect(axe.rules, 'axe with the shortcuts dialog open').toEqual([]);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    // Focus comes back once the dialog has gone, which on a loaded machine can be a frame after it leaves the DOM.
    await page.waitForFunction(() => document.activeElement?.textContent === 'Sessions', undefined, { timeout: 10_000 }).catch(() => undefined);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Sessions');
  }, 180_000);
});

describe("an item's state changed with the arrow keys", () => {
  it('records only the state chosen: nothing while stepping, one change on Enter, none on Escape', async () => {
    const made = await server.ok(CREATE_TASK, { input: { title: 'Arrow keys task', goal: 'Step through states', domain: 'keys/states', items: ['Ship the fix', 'Keep open'] } });
    const [item] = made.createTask.items;
    const taskId = made.createTask.task.id as string;
    await server.ok('mutation($input: UpdateItemInput!) { updateItem(input: $input) { id } }', { input: { id: item.id, state: 'BLOCKED', comment: 'Waiting on review' } });
    const recorded = async () => {
      const read = await server.ok('query($id: ID!, $item: ID!) { task(id: $id) { version } item(id: $item) { state } }', { id: taskId, item: item.id });
      return { version: read.task.version as number, state: read.item.state as string };
    };
    const before = await recorded();
    const page = await openPage(browser, `${base()}/#/task/${taskId}`);
    const button = stateButton(page, 'Ship the fix');
    await button.focus();
    await page.keyboard.press('Enter');
    const focused = () => page.evaluate(() => document.activeElement?.textContent ?? '');
    await expect.poll(focused, { timeout: 10_000 }).toBe('Blocked…');
    for (let i = 0; i < 3; i += 1) await page.keyboard.press('ArrowUp');
    // Blocked, up three: Dropped, Done, Doing. Focused in the menu, recorded nowhere.
    expect(await focused()).toBe('Doing');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await recorded()).toEqual(before);
    await page.keyboard.press('Escape');
    expect(await stateOf(page, 'Ship the fix')).toBe('BLOCKED');
    expect(await recorded()).toEqual(before);

    await page.keyboard.press('Enter');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Enter');
    await expect.poll(recorded, { timeout: 15_000 }).toEqual({ version: before.version + 1, state: 'DONE' });
    // One change in the history, from Blocked straight to Done.
    const history = await server.ok('query($id: ID!) { task(id: $id) { history(first: 200) { nodes { action items { text state } } } } }', { id: taskId });
    const last = history.task.history.nodes.at(-1);
    expect(last.items.find((row: { text: string }) => row.text === 'Ship the fix').state).toBe('DONE');
    expect(history.task.history.nodes.at(-2).items.find((row: { text: string }) => row.text === 'Ship the fix').state).toBe('BLOCKED');
  }, 180_000);
});

describe('the token dialog', () => {
  let guarded: TestServer;
  beforeAll(async () => { guarded = await startTestServer({ env: { TASKBASE_TOKENS: 'writer-secret' } }); });
  afterAll(async () => { await guarded?.close(); });

  it('keeps focus inside while it asks for the token', async () => {
    const page = await openPage(browser, `${guarded.url.replace(/\/graphql$/, '')}/#/domains`);
    await page.getByLabel('Bearer token').waitFor();
    for (let i = 0; i < 5; i += 1) {
      await page.keyboard.press('Tab');
      expect(await focusInDialog(page), `Tab ${i + 1} stays in the token dialog`).toBe(true);
    }
    await page.keyboard.press('Shift+Tab');
    expect(await focusInDialog(page)).toBe(true);
    await page.getByLabel('Bearer token').fill('writer-secret');
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
  }, 180_000);
});

describe('a task with more comments than a page', () => {
  it('shows the first 200 and reaches the last by "Show more comments"', async () => {
    const made = await server.ok(CREATE_TASK, { input: { title: 'Talkative task', goal: 'Many comments', domain: 'keys/comments', items: ['Only item'] } });
    const taskId = made.createTask.task.id as string;
    const body = (n: number) => `Comment number ${String(n).padStart(3, '0')}`;
    for (let start = 1; start <= 250; start += 50) {
      const fields = Array.from({ length: 50 }, (_, i) => `c${i}: addComment(input: { taskId: "${taskId}", body: "${body(start + i)}" }) { id }`);
      await server.ok(`mutation { ${fields.join('\n')} }`);
    }
    const page = await openPage(browser, `${base()}/#/task/${taskId}`);
    const comments = page.locator('section.comments[aria-label="Comments on the task"] > ul > li');
    await comments.first().waitFor();
    expect(await comments.count(), 'the first page is bounded').toBe(200);
    expect(await page.getByText(body(250)).count()).toBe(0);
    await page.getByRole('button', { name: 'Show more comments (200 of 250 loaded)' }).click();
    await page.getByText(body(250)).waitFor();
    expect(await comments.count()).toBe(250);
    expect(await page.getByRole('button', { name: /Show more comments/ }).count()).toBe(0);
    // A comment added now lands at the end of what is shown.
    await page.getByLabel('Comment on the task').fill('The newest one');
    await page.getByRole('button', { name: 'Comment', exact: true }).click();
    await expect.poll(() => comments.count(), { timeout: 10_000 }).toBe(251);
    expect(await comments.last().textContent()).toContain('The newest one');
  }, 180_000);
});
