/**
 * What a person does in the dashboard without an agent, in a real browser:
 * open a task, correct its title and domain against an agent's edit, bring
 * an archived task back, delete an item and undo it, write a domain's notes,
 * read sessions by name, and find the busy domain first.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { CREATE_TASK, READ_ITEMS_WITH_DELETED, UPDATE_ITEM } from '../fixtures/documents.js';
import { axeFindings, chooseState, dashboardSuite, openPage, stateButton, type WatchedPage, whenLive, rowAction } from '../fixtures/browser.js';

// Evaluated in the page, not in Node.
declare const document: { activeElement: { id?: string } | null; title: string; documentElement: { scrollWidth: number } };
declare const window: { innerWidth: number };

const { server, browser, base } = dashboardSuite();

const TASKS_IN = 'query($domain: String!) { memories(domain: $domain, kind: TASK, first: 50) { totalCount nodes { id title domain status } } }';
const NOTES_IN = 'query($domain: String!) { memories(domain: $domain, kind: NOTE, first: 50) { nodes { id title ... on Note { body } } } }';
const TASK = 'query($id: ID!) { task(id: $id) { id title domain status version } }';
const EDIT_TASK_VERSION = 'mutation($input: EditTaskInput!) { editTask(input: $input) { id version } }';

let seq = 0;
async function newTask(items: string[], domain = `people/flow${(seq += 1)}`) {
  const made = await server.ok(CREATE_TASK, { input: { title: `Ship the refund flow ${seq}`, goal: 'Refunds reach the customer.', domain, items } });
  return { id: made.createTask.task.id as string, domain, items: made.createTask.items as { id: string; text: string }[] };
}
async function itemsOf(taskId: string) {
  return (await server.ok(READ_ITEMS_WITH_DELETED, { id: taskId })).task.items.nodes as { id: string; text: string; state: string; deleted: boolean }[];
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
async function noSeriousAxe(page: Page) {
  const found = await axeFindings(page);
  expect(found.rules, 'axe-core: critical or serious findings').toEqual([]);
}
async function openTask(taskId: string): Promise<WatchedPage> {
  const page = await openPage(browser, `${base()}/#/task/${taskId}`);
  await page.getByRole('heading', { level: 2 }).waitFor();
  await whenLive(page);
  return page;
}

describe('creating a task', () => {
  it('refuses in words at the field and creates nothing, then opens the new task', async () => {
    await newTask(['Already here'], 'people/known');
    const page = await openPage(browser, `${base()}/#/new-task?domain=people/fresh`);
    await page.getByRole('heading', { name: 'New task' }).waitFor();
    expect(await page.evaluate(() => document.title)).toBe('New task · taskbase');
    expect(await page.getByLabel(/^Domain/).inputValue()).toBe('people/fresh');
    // The known domains are offered to pick from.
    await page.locator('#known-domains option[value="people/known"]').waitFor({ state: 'attached' });

    await page.getByRole('button', { name: 'Create task' }).click();
    await page.getByRole('alert').filter({ hasText: 'Give the task a title.' }).waitFor();
    await page.getByLabel('Title').fill('Refunds by webhook');
    await page.getByLabel(/^Goal/).fill('Every refund is sent once.');
    await page.getByLabel('Items, one per line').fill(`Key refunds by event id\n${'x'.repeat(81)}`);
    await page.getByLabel(/^Domain/).fill('People/Fresh');
    await page.getByRole('button', { name: 'Create task' }).click();
    await page.getByRole('alert').filter({ hasText: 'A domain is lower-case words joined by “/”' }).waitFor();
    await page.getByLabel(/^Domain/).fill('people/fresh');
    await page.getByRole('button', { name: 'Create task' }).click();
    // The server's refusal, said for a person: which item, how long, what to do.
    await page.getByRole('alert').filter({ hasText: 'Item 2 is 81 characters; an item may have 80.' }).waitFor();
    expect((await server.ok(TASKS_IN, { domain: 'people/fresh' })).memories.totalCount).toBe(0);
    await noSeriousAxe(page);

    await page.getByLabel('Items, one per line').fill('Key refunds by event id\n\nCover partial refunds\n');
    await page.getByRole('button', { name: 'Create task' }).click();
    await page.getByRole('heading', { level: 2, name: 'Refunds by webhook' }).waitFor();
    const made = (await server.ok(TASKS_IN, { domain: 'people/fresh' })).memories;
    expect(made.totalCount).toBe(1);
    expect(page.url()).toBe(`${base()}/#/task/${made.nodes[0].id}`);
    await stateButton(page, 'Cover partial refunds').waitFor();
    expect(page.errors).toEqual([]);
  });
});

describe("a task's own controls", () => {
  it("edits the title and domain; an agent's edit in between is shown beside mine, and mine can be applied again", async () => {
    const task = await newTask(['Send the refund']);
    const page = await openTask(task.id);
    await page.getByRole('button', { name: 'Edit title and domain' }).click();
    await page.getByLabel('Title', { exact: true }).fill('Refund flow, person’s title');
    await page.getByLabel('Domain', { exact: true }).fill('people/renamed');
    // The agent renames the task while the person types.
    const before = (await server.ok(TASK, { id: task.id })).task;
    await server.ok(EDIT_TASK_VERSION, { input: { id: task.id, title: 'Refund flow, agent’s title', expectedVersion: before.version } });
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const conflict = page.getByRole('alert').filter({ hasText: 'The title or domain was changed by someone else' });
    await conflict.waitFor();
    await conflict.getByText(`“Refund flow, agent’s title” in ${task.domain}`).waitFor();
    await conflict.getByText('“Refund flow, person’s title” in people/renamed').waitFor();
    // Nothing of mine was written yet.
    expect((await server.ok(TASK, { id: task.id })).task).toMatchObject({ title: 'Refund flow, agent’s title', domain: task.domain });
    await noSeriousAxe(page);
    await conflict.getByRole('button', { name: 'Apply mine again' }).click();
    const after = await eventually(async () => (await server.ok(TASK, { id: task.id })).task, (now) => now.domain === 'people/renamed');
    expect(after).toMatchObject({ title: 'Refund flow, person’s title', domain: 'people/renamed' });
    await page.getByRole('heading', { level: 2, name: 'Refund flow, person’s title' }).waitFor();
    await page.locator('.crumbs a', { hasText: 'people/renamed' }).waitFor();
  });

  it('says how an open task is archived, and brings an archived one back with what is left to do', async () => {
    const task = await newTask(['Only step']);
    const page = await openTask(task.id);
    await page.getByRole('button', { name: 'Archive…' }).click();
    await page.getByText('A task is archived once every item is Done or Dropped').waitFor();
    await chooseState(page, 'Only step', 'DONE');
    await page.locator('.state.archived').waitFor();
    expect((await server.ok(TASK, { id: task.id })).task.status).toBe('ARCHIVED');
    // Archived tasks are reached by the domain's filter.
    const list = await openPage(browser, `${base()}/#/domains/${task.domain}?archived=1`);
    await list.getByRole('link', { name: `Ship the refund flow` }).first().waitFor();

    await page.getByRole('button', { name: 'Bring back…' }).click();
    await page.getByLabel(/What is left to do/).fill('Tell support');
    await page.getByRole('button', { name: 'Bring it back' }).click();
    await stateButton(page, 'Tell support').waitFor();
    expect((await server.ok(TASK, { id: task.id })).task.status).toBe('ACTIVE');
    await page.getByRole('button', { name: 'Archive…' }).waitFor();
  });

  it('drops the rest with one reason and archives the task in one step', async () => {
    const task = await newTask(['Finished', 'Not started', 'Stuck']);
    const page = await openTask(task.id);
    await chooseState(page, 'Finished', 'DONE');
    await chooseState(page, 'Stuck', 'BLOCKED', 'Waiting on legal');
    await page.getByRole('button', { name: 'Archive…' }).click();
    const submit = page.getByRole('button', { name: 'Drop the rest and archive' });
    expect(await submit.isDisabled()).toBe(true);
    const findings = await axeFindings(page);
    expect(findings.rules).toEqual([]);
    await page.getByLabel(/Why will the rest not be done/).fill('The customer cancelled');
    await submit.click();
    await page.locator('.state.archived').waitFor();
    await page.getByText('Dropped — The customer cancelled').nth(1).waitFor();
    expect((await server.ok(TASK, { id: task.id })).task.status).toBe('ARCHIVED');
    const items = (await server.ok(READ_ITEMS_WITH_DELETED, { id: task.id })).task.items.nodes;
    expect(items.map((item: { state: string }) => item.state)).toEqual(['DONE', 'DROPPED', 'DROPPED']);
  });
});

describe('deleting an item', () => {
  it('offers Undo, keeps focus on the next item, and restores from "Show deleted items"', async () => {
    const task = await newTask(['First', 'Second', 'Third']);
    const page = await openTask(task.id);
    await rowAction(page, 'Second', 'Delete');
    const toast = page.getByRole('status').filter({ hasText: 'Deleted “Second”.' });
    await toast.waitFor();
    // The pointer on the toast holds it, as a person reaching for Undo does.
    await toast.hover();
    await stateButton(page, 'Second').waitFor({ state: 'detached' });
    // Focus moves in the frame after the server's answer, which may come just after the row has gone.
    const focused = () => page.evaluate(() => document.activeElement?.id);
    await expect.poll(focused).toBe(`state-${task.items[2].id}`);
    expect((await itemsOf(task.id))[1].deleted).toBe(true);
    await noSeriousAxe(page);

    await toast.getByRole('button', { name: 'Undo' }).click();
    await stateButton(page, 'Second').waitFor();
    expect((await itemsOf(task.id)).map((item) => [item.text, item.deleted])).toEqual([['First', false], ['Second', false], ['Third', false]]);
    await toast.waitFor({ state: 'detached' });

    await rowAction(page, 'Third', 'Delete');
    await stateButton(page, 'Third').waitFor({ state: 'detached' });
    // The last row gone: focus goes to the row above it.
    await expect.poll(focused).toBe(`state-${task.items[1].id}`);
    await page.getByRole('button', { name: 'Dismiss' }).click();
    await page.getByLabel('Show deleted items').check();
    await page.getByRole('button', { name: 'Restore “Third”' }).click();
    await stateButton(page, 'Third').waitFor();
    expect((await itemsOf(task.id))[2].deleted).toBe(false);
    expect(page.errors).toEqual([]);
  });
});

describe("a domain's notes", () => {
  it('adds a note from the domain view and edits it there', async () => {
    const task = await newTask(['Anything'], 'people/notes');
    const page = await openPage(browser, `${base()}/#/domains/${task.domain}`);
    await whenLive(page);
    await page.getByRole('button', { name: 'Add a note to people/notes' }).click();
    await page.getByRole('button', { name: 'Save note' }).click();
    await page.getByRole('alert').filter({ hasText: 'Give the note a title.' }).waitFor();
    await page.getByLabel('Note title').fill('Refund provider quirks');
    await page.getByLabel('Note body').fill('Partial refunds arrive as two events.\nKey both by event id.');
    await page.getByRole('button', { name: 'Save note' }).click();
    await page.locator('.note summary', { hasText: 'Refund provider quirks' }).click();
    await noSeriousAxe(page);
    await page.getByRole('button', { name: 'Edit note “Refund provider quirks”' }).click();
    await page.getByLabel('Body').fill('Partial refunds arrive as two events; key both by event id.');
    await page.getByRole('button', { name: 'Save note' }).click();
    const notes = await eventually(async () => (await server.ok(NOTES_IN, { domain: task.domain })).memories.nodes, (nodes) => nodes[0]?.body.includes(';'));
    expect(notes).toEqual([expect.objectContaining({ title: 'Refund provider quirks', body: 'Partial refunds arrive as two events; key both by event id.' })]);
  });
});

describe('sessions by name', () => {
  it("names a session by its MCP client's clientInfo, with its start and last activity, in the list and the session view", async () => {
    const client = new Client({ name: 'refund-agent', title: 'Refund fixer', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', base())));
    try {
      // The session starts at the connection's first tool call.
      await client.callTool({ name: 'must_read', arguments: { domain: 'refunds/agent' } });
      const found = await eventually(
        async () => (await server.ok('{ sessions(first: 20) { nodes { id name } } }')).sessions.nodes as { id: string; name: string | null }[],
        (nodes) => nodes.some((node) => node.name === 'Refund fixer'),
      );
      const session = found.find((node) => node.name === 'Refund fixer')!;
      const page = await openPage(browser, `${base()}/#/sessions`);
      const link = page.getByRole('link', { name: 'Refund fixer' });
      await link.waitFor();
      await page.locator('.session-list > li', { has: link }).getByText(/started .* · active /).waitFor();
      await link.click();
      await page.getByRole('heading', { level: 2, name: 'Refund fixer' }).waitFor();
      await page.getByText(`id ${session.id} · started`).waitFor();
      await page.getByText('last active').waitFor();
      await noSeriousAxe(page);
    } finally {
      await client.close();
    }
  });
});

describe('the domain list', () => {
  it('puts the most recently active domain first, a 500-task domain included, and sorts by name or age and filters by state', async () => {
    const quiet = await newTask(['Wait'], 'zbulk/quiet');
    // 500 tasks in one domain, 50 to a request.
    for (let start = 0; start < 500; start += 50) {
      const fields = Array.from({ length: 50 }, (_, i) => `t${i}: createTask(input: { title: "Audit shard ${start + i}", goal: "Checked.", domain: "zbulk/busy", items: ["Check"] }) { task { id } }`);
      await server.ok(`mutation { ${fields.join('\n')} }`);
    }
    const page = await openPage(browser, `${base()}/#/domains`);
    const order = () => page.locator('nav.tree li a').allTextContents();
    await page.getByRole('link', { name: 'zbulk/busy' }).waitFor();
    let names = await order();
    expect(names.indexOf('zbulk/busy')).toBeLessThan(names.indexOf('zbulk/quiet'));
    expect(await page.locator('nav.tree li', { has: page.getByRole('link', { name: 'zbulk/busy' }) }).locator('.count').textContent()).toBe('500/500');

    // The quiet domain's task changes: live, it moves to the top of the activity order.
    await server.ok(UPDATE_ITEM, { input: { id: quiet.items[0].id, state: 'DONE' } });
    await eventually(order, (now) => now.indexOf('zbulk/quiet') < now.indexOf('zbulk/busy'));
    names = await order();
    // Only its parent, whose activity is its busiest child's, stands with it at the top.
    expect(names.slice(0, 2)).toEqual(['zbulk', 'zbulk/quiet']);

    await page.getByLabel('Sort').selectOption('created');
    names = await order();
    expect(names.indexOf('zbulk/busy')).toBeLessThan(names.indexOf('zbulk/quiet'));
    await page.getByLabel('Show').selectOption('done');
    names = await order();
    expect(names).toContain('zbulk/quiet');
    expect(names).not.toContain('zbulk/busy');
    await page.getByLabel('Sort').selectOption('path');
    await page.getByLabel('Show').selectOption('all');
    names = await order();
    expect(names.indexOf('busy')).toBeLessThan(names.indexOf('quiet'));
    await noSeriousAxe(page);

    await page.getByRole('link', { name: 'busy', exact: true }).click();
    await page.getByText('500 tasks', { exact: true }).waitFor({ timeout: 30_000 });
    // At 390 px the list and the domain still fit the screen.
    await page.setViewportSize({ width: 390, height: 800 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
  }, 300_000);
});
