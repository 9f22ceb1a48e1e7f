/** The dashboard in a real browser (Debian's chromium): people read and steer the same checklists the agents write, live. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { startBuiltServer, type BuiltServer } from '../built-server.js';
import { CREATE_TASK, ADD_TASK_NOTE, START_SESSION, WRITE_TODOS, READ_ITEMS_WITH_DELETED, UPDATE_ITEM } from '../fixtures/documents.js';
import { brief } from '../fixtures/knowledge.js';
import { chooseState, dashboardSuite, openPage, stateButton, stateOf, type WatchedPage, whenLive, rowAction } from '../fixtures/browser.js';

// Evaluated in the page, not in Node.
declare const document: {
  querySelectorAll(selector: string): { length: number };
  createElement(tag: string): { textContent: string };
  head: { append(node: unknown): void };
  body: { dataset: Record<string, string | undefined> };
};
declare const localStorage: unknown;

const onPostgres = Boolean(process.env.TEST_POSTGRES_URL);
const { server, browser, base } = dashboardSuite();

let seq = 0;
async function newTask(items = ['Key charge.succeeded by event id', 'Cover refunds and disputes', 'Remove the charge-id lookup']) {
  seq += 1;
  const domain = `web/flows${seq}`;
  const made = await server.ok(CREATE_TASK, { input: { title: `Move billing webhooks ${seq}`, goal: 'Every webhook is deduplicated.', domain, items } });
  return { id: made.createTask.task.id as string, domain, items: made.createTask.items as { id: string; text: string }[] };
}
async function itemsOf(taskId: string) {
  return (await server.ok(READ_ITEMS_WITH_DELETED, { id: taskId })).task.items.nodes as { id: string; text: string; state: string; deleted: boolean }[];
}
async function openTask(taskId: string): Promise<WatchedPage> {
  const page = await openPage(browser, `${base()}/#/task/${taskId}`);
  await page.getByRole('heading', { level: 2 }).waitFor();
  return page;
}
/** Retries until the server's answer satisfies the check (the page's change is a request away). */
async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (check(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the checklist', () => {
  it('opens a domain, then a task from it', async () => {
    const task = await newTask();
    const page = await openPage(browser, `${base()}/#/domains/${task.domain}`);
    const row = page.getByRole('row', { name: /Move billing webhooks/ });
    await row.getByText('0/3').waitFor();
    await row.getByRole('link').click();
    await page.getByRole('heading', { name: `Move billing webhooks ${seq}` }).waitFor();
    expect(await stateOf(page, 'Cover refunds and disputes')).toBe('PENDING');
  });

  it("marks an item done with its state control, named by the item's text", async () => {
    const task = await newTask();
    const page = await openTask(task.id);
    await chooseState(page, 'Key charge.succeeded by event id', 'DONE');
    const items = await eventually(() => itemsOf(task.id), (list) => list[0].state === 'DONE');
    expect(items[0].state).toBe('DONE');
    await page.getByText('1/3').waitFor();
  });

  it('adds, renames, reorders (keyboard and drag) and deletes items; deleted ones stay viewable', async () => {
    const task = await newTask();
    const page = await openTask(task.id);
    await page.getByLabel('Add items (one per line)').fill('Document the replay queue');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await stateButton(page, 'Document the replay queue').waitFor();

    await rowAction(page, 'Remove the charge-id lookup', 'Rename');
    await page.getByLabel('New text for “Remove the charge-id lookup”').fill('Drop the charge-id lookup');
    await page.keyboard.press('Enter');
    await stateButton(page, 'Drop the charge-id lookup').waitFor();

    // Keyboard: Alt+↑ on the last item's state control moves it up one place, and keeps focus on it.
    await stateButton(page, 'Document the replay queue').focus();
    await page.keyboard.press('Alt+ArrowUp');
    let items = await eventually(() => itemsOf(task.id), (list) => list[2].text === 'Document the replay queue');
    expect(items.map((item) => item.text)).toEqual(['Key charge.succeeded by event id', 'Cover refunds and disputes', 'Document the replay queue', 'Drop the charge-id lookup']);
    await page.locator('.checklist li').nth(2).getByText('Document the replay queue').waitFor();

    // Drag: the first item dropped on the third.
    await page.locator(`#item-${task.items[0].id}`).dragTo(page.locator(`#item-${items[2].id}`));
    items = await eventually(() => itemsOf(task.id), (list) => list[2].text === 'Key charge.succeeded by event id');
    expect(items.map((item) => item.text)).toEqual(['Cover refunds and disputes', 'Document the replay queue', 'Key charge.succeeded by event id', 'Drop the charge-id lookup']);

    await rowAction(page, 'Drop the charge-id lookup', 'Delete');
    await stateButton(page, 'Drop the charge-id lookup').waitFor({ state: 'detached' });
    items = await itemsOf(task.id);
    expect(items.find((item) => item.text === 'Drop the charge-id lookup')?.deleted).toBe(true);
    await page.getByLabel('Show deleted items').check();
    await page.locator('.item.deleted s', { hasText: 'Drop the charge-id lookup' }).waitFor();
  });

  it('writes the [[#id]] token from the # menu, and renders it as a link struck once the item is deleted', async () => {
    const task = await newTask();
    const page = await openTask(task.id);
    const field = page.getByLabel('Comment on the task');
    await field.click();
    await page.keyboard.type('Disputes need their own queue, like #refu');
    await page.getByRole('option', { name: '#2 Cover refunds and disputes' }).waitFor();
    await page.keyboard.press('Enter');
    await page.keyboard.type('?');
    expect(await field.inputValue()).toBe(`Disputes need their own queue, like [[#${task.items[1].id}]]?`);
    await page.getByRole('button', { name: 'Comment', exact: true }).click();
    const link = page.locator('.comments a.ref', { hasText: '[#2 Cover refunds and disputes]' });
    await link.waitFor();
    expect(await link.getAttribute('href')).toBe(`#/task/${task.id}?item=${task.items[1].id}`);

    await rowAction(page, 'Cover refunds and disputes', 'Delete');
    await page.locator('.comments a.ref.deleted s', { hasText: 'Cover refunds and disputes' }).waitFor();
  });

  it("edits an item's brief", async () => {
    const task = await newTask();
    await server.ok(ADD_TASK_NOTE, { input: { taskId: task.id, title: 'Replay queue', items: [task.items[1].id], brief: brief() } });
    const page = await openPage(browser, `${base()}/#/task/${task.id}?item=${task.items[1].id}`);
    await page.getByRole('button', { name: 'Edit “Replay queue”' }).first().click();
    await page.getByLabel('Steps').fill('Persist each event id, then act. Mind #rem');
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const notes = await eventually(
      () => server.ok('query($id: ID!) { task(id: $id) { notes(first: 10) { nodes { brief { steps goal } } } } }', { id: task.id }),
      (data) => data.task.notes.nodes[0].brief.steps.startsWith('Persist each event id, then act'),
    );
    expect(notes.task.notes.nodes[0].brief).toEqual({ steps: `Persist each event id, then act. Mind [[#${task.items[2].id}]]`, goal: brief().goal });
    await page.locator('.brief a.ref', { hasText: '[#3 Remove the charge-id lookup]' }).first().waitFor();
  });
});

describe('live', () => {
  it("shows an agent's writeTodos in the session view, with its update row and what changed", async () => {
    const session = (await server.ok(START_SESSION, {})).startSession.id as string;
    await server.ok(WRITE_TODOS, { todos: [{ content: 'Run the tests', status: 'IN_PROGRESS' }, { content: 'Fix the build', status: 'PENDING' }] }, { session });
    const page = await openPage(browser, `${base()}/#/sessions/${session}`);
    await page.getByText('Update to-do list').first().waitFor();
    await whenLive(page);
    const rows = page.locator(".history ol.events > li");
    const panel = page.locator('details.todos');
    // Until the page's subscription is held, an update may be missed: poke with updates until one shows.
    for (let attempt = 0; attempt < 20 && (await rows.count()) < 2; attempt += 1) {
      await server.ok(WRITE_TODOS, { todos: [{ content: 'Run the tests', status: 'IN_PROGRESS' }, { content: 'Fix the build', status: 'PENDING' }] }, { session });
      await rows.nth(1).waitFor({ timeout: 700 }).catch(() => undefined);
    }
    const before = await rows.count();
    await server.ok(WRITE_TODOS, { todos: [{ content: 'Run the tests', status: 'DONE' }, { content: 'Fix the build', status: 'IN_PROGRESS' }, { content: 'Ship it', status: 'PENDING' }] }, { session });
    await rows.nth(before).waitFor({ timeout: 5000 });
    await panel.getByText('Completed 1').waitFor();
    await panel.getByText('In progress 1').waitFor();
    await panel.getByText('Pending 1').waitFor();
    await page.getByText(/^3\/3|1\/3 · Fix the build/).first().waitFor();
    const newest = rows.first();
    expect(await newest.locator('summary').textContent()).toContain('Update to-do list');
    await newest.locator('summary').click();
    const diff = await newest.locator('.diff').textContent();
    expect(diff).toContain('+ Ship it');
    expect(diff, 'whole-list rows read in its chat words').toContain('Run the tests: In progress → Completed');
  });

  it(onPostgres ? 'shows an updateItem made through another server process on the open task' : 'shows an updateItem made over HTTP on the open task', async () => {
    // On PostgreSQL the page is served by one server process and the change goes through another (LISTEN/NOTIFY between them).
    let other: BuiltServer | null = null;
    if (onPostgres) other = await startBuiltServer(server.databaseUrl, fs.mkdtempSync(path.join(os.tmpdir(), 'taskbase-web-')));
    try {
      const send = async (query: string, variables: Record<string, unknown>) => {
        if (!other) return server.ok(query, variables);
        const result = await other.graphql(query, variables);
        expect(result.errors).toBeUndefined();
        return result.data;
      };
      const task = await newTask();
      const page = await openTask(task.id);
      await whenLive(page);
      const comments = page.locator('section.comments').last().locator('li');
      for (let attempt = 0; attempt < 20 && (await comments.count()) === 0; attempt += 1) {
        await send('mutation($input: AddCommentInput!) { addComment(input: $input) { id } }', { input: { taskId: task.id, body: `poke ${attempt}` } });
        await comments.first().waitFor({ timeout: 700 }).catch(() => undefined);
      }
      await send(UPDATE_ITEM, { input: { id: task.items[2].id, state: 'IN_PROGRESS', comment: 'on it' } });
      await page.locator(`#item-${task.items[2].id} .note-line`, { hasText: 'on it' }).waitFor({ timeout: 5000 });
      expect(await stateOf(page, 'Remove the charge-id lookup')).toBe('IN_PROGRESS');
    } finally {
      other?.process.kill('SIGTERM');
      await other?.exited();
    }
  });
});

describe('under its Content-Security-Policy', () => {
  it('loads, goes live and opens a task with no violation, while the policy is in force', async () => {
    const task = await newTask();
    const page = await openTask(task.id);
    await whenLive(page);
    await stateButton(page, 'Cover refunds and disputes').waitFor();
    await page.getByRole('link', { name: 'Sessions' }).click();
    await page.getByRole('heading', { level: 2 }).waitFor();
    expect(page.cspViolations).toEqual([]);
    expect(page.errors).toEqual([]);
    // The policy is the page's: a script the bundle did not bring is refused, and the refusal is seen.
    expect(await page.evaluate(() => {
      const script = document.createElement('script');
      script.textContent = 'document.body.dataset.inline = "ran"';
      document.head.append(script);
      return document.body.dataset.inline ?? 'refused';
    })).toBe('refused');
    await expect.poll(() => page.cspViolations.length).toBeGreaterThan(0);
  });
});

describe('a dropped connection', () => {
  it('reconnects and refetches, so a change made while it was down shows', async () => {
    const task = await newTask();
    const sockets: { destroy(): void }[] = [];
    server.app.server.http.on('upgrade', (_request, socket) => sockets.push(socket));
    const page = await openTask(task.id);
    await whenLive(page);
    for (const socket of sockets.splice(0)) socket.destroy();
    await page.locator('[data-live="live"]').waitFor({ state: 'detached' });
    await server.ok(UPDATE_ITEM, { input: { id: task.items[0].id, state: 'DONE', comment: 'while offline' } });
    await whenLive(page);
    await page.locator(`#item-${task.items[0].id} .note-line`, { hasText: 'while offline' }).waitFor({ timeout: 5000 });
    expect(await stateOf(page, 'Key charge.succeeded by event id')).toBe('DONE');
  });
});

describe('Maintenance → Reminders', () => {
  it('turns reminders off and changes the interval; a refusal shows beside the button', async () => {
    const page = await openPage(browser, `${base()}/#/maintenance/reminders`);
    const interval = page.getByLabel('Interval (minutes, 1–1440)');
    await interval.waitFor();
    await page.getByLabel('Send reminders').uncheck();
    await interval.fill('45');
    await page.getByRole('button', { name: 'Save reminder settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    expect((await server.ok('{ reminderSettings { enabled intervalMinutes } }')).reminderSettings).toEqual({ enabled: false, intervalMinutes: 45 });

    await page.reload();
    await interval.waitFor();
    expect(await interval.inputValue()).toBe('45');
    expect(await page.getByLabel('Send reminders').isChecked()).toBe(false);

    await interval.fill('5000');
    await page.getByRole('button', { name: 'Save reminder settings' }).click();
    const refusal = page.locator('form .refusal[role=alert]');
    await refusal.waitFor();
    expect(await refusal.textContent()).toMatch(/1\.\.1440|1440/);
    expect((await server.ok('{ reminderSettings { intervalMinutes } }')).reminderSettings.intervalMinutes).toBe(45);
  });
});

describe('with TASKBASE_TOKENS set', () => {
  let guarded: TestServer;
  beforeAll(async () => { guarded = await startTestServer({ env: { TASKBASE_TOKENS: 'writer-secret,reader-secret:read' } }); });
  afterAll(async () => { await guarded?.close(); });

  it('asks for the token once, keeps it, and shows a read-only token no edit controls', async () => {
    const made = await guarded.gql(CREATE_TASK, { input: { title: 'Guarded task', goal: 'g', domain: 'web/guarded', items: ['Read me'] } }, { headers: { authorization: 'Bearer writer-secret' } });
    const taskId = made.data!.createTask.task.id;
    const guardedBase = guarded.url.replace(/\/graphql$/, '');
    const page = await openPage(browser, `${guardedBase}/#/task/${taskId}`);
    await page.getByLabel('Bearer token').fill('reader-secret');
    await page.getByRole('button', { name: 'Use this token' }).click();
    await page.getByRole('heading', { name: 'Guarded task' }).waitFor();
    await page.getByText('read-only').waitFor();
    await page.locator('.checklist .text', { hasText: 'Read me' }).waitFor();
    expect(await stateButton(page, 'Read me').count()).toBe(0);
    expect(await page.getByRole('button', { name: /Rename|Delete|Add|Edit goal/ }).count()).toBe(0);
    // A read-only row's actions menu offers its details only.
    await page.getByRole('button', { name: 'Actions for “Read me”' }).click();
    expect(await page.getByRole('menu', { name: 'Actions for “Read me”' }).getByRole('menuitem').allTextContents()).toEqual(['Details']);
    await page.keyboard.press('Escape');
    expect(await page.getByLabel('Add items (one per line)').count()).toBe(0);

    // Kept in the browser: a reload asks nothing.
    await page.reload();
    await page.getByRole('heading', { name: 'Guarded task' }).waitFor();
    expect(await page.getByLabel('Bearer token').count()).toBe(0);

    const writer = await openPage(browser, `${guardedBase}/#/task/${taskId}`, { token: 'writer-secret' });
    await stateButton(writer, 'Read me').waitFor();
  });

  it('renders and asks for the token when the browser blocks storage, and works with it for the page', async () => {
    const made = await guarded.gql(CREATE_TASK, { input: { title: 'Storage blocked', goal: 'g', domain: 'web/blocked', items: ['Still here'] } }, { headers: { authorization: 'Bearer writer-secret' } });
    const page = await openPage(browser, `${guarded.url.replace(/\/graphql$/, '')}/#/task/${made.data!.createTask.task.id}`, { blockStorage: true });
    expect(await page.evaluate(() => { try { return typeof localStorage; } catch (error) { return (error as Error).name; } })).toBe('SecurityError');
    await page.getByLabel('Bearer token').fill('writer-secret');
    await page.getByRole('button', { name: 'Use this token' }).click();
    await page.getByRole('heading', { name: 'Storage blocked' }).waitFor();
    await stateButton(page, 'Still here').waitFor();
    expect(page.errors).toEqual([]);
  });
});

describe('a domain of 500 tasks', () => {
  it('lists every task; first paint is measured, not asserted', async () => {
    const domain = 'web/big';
    for (let batch = 0; batch < 10; batch += 1) {
      const fields = Array.from({ length: 50 }, (_, i) => `t${i}: createTask(input: { title: "Big task ${batch * 50 + i}", goal: "g", domain: "${domain}", items: ["One", "Two"] }) { task { id } }`);
      await server.ok(`mutation { ${fields.join('\n')} }`);
    }
    const page = await openPage(browser, `${base()}/#/domains/${domain}`);
    await page.waitForFunction(() => document.querySelectorAll('table.tasks tbody tr').length >= 500, undefined, { timeout: 30_000 });
    // The page marks all rows in the frame after they are in the document.
    await page.waitForFunction(() => performance.getEntriesByName('tasks-all-rows').length > 0, undefined, { timeout: 30_000 });
    const timing = await page.evaluate(() => {
      const paint = Object.fromEntries(performance.getEntriesByType('paint' as 'mark').map((entry) => [entry.name, Math.round(entry.startTime)]));
      const mark = (name: string) => Math.round(performance.getEntriesByName(name)[0]?.startTime ?? -1);
      return { ...paint, firstRows: mark('tasks-first-rows'), allRows: mark('tasks-all-rows'), rows: document.querySelectorAll('table.tasks tbody tr').length };
    });
    console.log(`[first paint] domain of 500 tasks: ${JSON.stringify(timing)}`);
    console.log(`[first rows] 500-task domain: ${timing.firstRows} ms (all 500 rows: ${timing.allRows} ms)`);
    expect(timing.rows).toBe(500);
  }, 120_000);
});
