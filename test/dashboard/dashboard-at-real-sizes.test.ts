/**
 * The dashboard at the sizes agents write (Chromium, seeded over GraphQL):
 * every item, change and session reachable; a person's edit never silently
 * replaces an agent's; live changes patch rows instead of refetching the
 * task; rule-bound plans steerable; stuck work named; every view passes axe.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../harness.js';
import { CREATE_TASK, START_SESSION, WRITE_TODOS, SET_PLAN, UPDATE_ITEM, EDIT_TASK, CREATE_NOTE, FINISH_SESSION } from '../fixtures/documents.js';
import { axeFindings, chooseState, countDownloads, dashboardSuite, openPage, stateButton, whenLive, rowAction } from '../fixtures/browser.js';
import { TASK_HEAD, TASK_ITEMS } from '../../web/src/dashboard-documents.mjs';

// Evaluated in the page, not in Node.
declare const document: { querySelectorAll(selector: string): { length: number }; documentElement: { scrollWidth: number }; title: string; activeElement: { id?: string; tagName: string } | null; body: unknown };
declare const window: { innerWidth: number };
declare const location: { hash: string };
declare function getComputedStyle(element: unknown): { backgroundColor: string };

const { server, browser, base } = dashboardSuite();

/** Runs `count` copies of a mutation field in requests of `batch` aliased fields each. */
async function inBatches(count: number, batch: number, field: (index: number) => string, options: { session?: string } = {}) {
  for (let start = 0; start < count; start += batch) {
    const fields = Array.from({ length: Math.min(batch, count - start) }, (_, i) => `m${i}: ${field(start + i)}`);
    await server.ok(`mutation { ${fields.join('\n')} }`, {}, options);
  }
}
const label = (n: number) => `Check shard ${String(n).padStart(4, '0')}`;

/**
 * A task of `live` items (at most 500, a task's limit). With `deleted`, that
 * many are deleted first and as many added after them, so the list with
 * deleted items shows live + deleted rows, the deleted ones first.
 */
async function bigTask(domain: string, live: number, deleted = 0) {
  const made = await server.ok(CREATE_TASK, { input: { title: `Audit ${domain}`, goal: 'Line one of the goal.\nLine two of the goal.', domain, items: [label(1)] } });
  const taskId = made.createTask.task.id as string;
  const add = (from: number, count: number) => inBatches(Math.ceil(count / 100), 5, (i) =>
    `addItems(input: { taskId: "${taskId}", items: ${JSON.stringify(Array.from({ length: Math.min(100, count - i * 100) }, (_, j) => label(from + i * 100 + j)))} }) { items { id } }`);
  await add(2, (deleted ? Math.max(deleted, 1) : live) - 1);
  if (deleted) {
    const doomed = (await itemIds(taskId)).map((item) => item.id);
    await inBatches(doomed.length, 50, (i) => `deleteItem(id: "${doomed[i]}") { id }`);
    await add(deleted + 1, live);
  }
  return taskId;
}

async function itemIds(taskId: string, includeDeleted = false): Promise<{ id: string; text: string; deleted: boolean }[]> {
  const all: { id: string; text: string; deleted: boolean }[] = [];
  let after: string | null = null;
  for (;;) {
    const page: any = (await server.ok(`query($id: ID!, $after: String, $d: Boolean) { task(id: $id) { items(first: 200, after: $after, includeDeleted: $d) { pageInfo { hasNextPage endCursor } nodes { id text deleted } } } }`, { id: taskId, after, d: includeDeleted })).task.items;
    all.push(...page.nodes);
    if (!page.pageInfo.hasNextPage) return all;
    after = page.pageInfo.endCursor;
  }
}

const rows = (page: Page) => page.evaluate(() => document.querySelectorAll('.checklist > li').length);
const firstRows = (page: Page) => page.evaluate(() => Math.round(performance.getEntriesByName('items-first-rows')[0]?.startTime ?? -1));

describe('a task with 1,000 items (500 live, 500 deleted: a task holds at most 500 live ones)', () => {
  let taskId: string;
  beforeAll(async () => {
    taskId = await bigTask('size/thousand', 500, 500);
    // A 1,000-change history: 500 more state changes on top of the seeding's.
    const live = await itemIds(taskId);
    await inBatches(500, 50, (i) => `updateItem(input: { id: "${live[i].id}", state: ${i % 2 ? 'DONE' : 'IN_PROGRESS'} }) { id }`);
  }, 300_000);

  it('shows its first rows from one small page, and reaches item 1,000 by pages', async () => {
    const page = await openPage(browser, `${base()}/#/task/${taskId}`);
    await page.locator('.checklist > li').first().waitFor();
    const requests = await page.evaluate(() => performance.getEntriesByType('resource').map((entry: any) => `${entry.name.replace(/^.*\//, '')} ${Math.round(entry.startTime)}+${Math.round(entry.duration)}ms ${entry.encodedBodySize}B`));
    console.log(`[first rows] 1,000-item task: ${await firstRows(page)} ms after navigation, ${await rows(page)} rows in the first page; requests: ${requests.join(', ')}`);
    expect(await rows(page), 'the first page is a screen and a half, not hundreds of rows').toBe(30);
    await page.getByText('Show more items (30 of 500 shown)').waitFor();
    await page.getByLabel('Show deleted items').check();
    await page.getByRole('button', { name: 'Show all' }).click();
    // Ten pages read and rendered one after another: a minute is plenty alone, not always on CI's shared cores.
    await page.waitForFunction(() => document.querySelectorAll('.checklist > li').length === 1000, undefined, { timeout: 150_000 });
    const last = await page.locator('.checklist > li').last().locator('.text').textContent();
    expect(last).toBe(label(1000));
    expect(await page.locator('.checklist > li').last().locator('.num').textContent()).toBe('500.');
  }, 210_000);

  it('a link to an item not loaded yet loads the page that holds it and shows it', async () => {
    const items = await itemIds(taskId);
    const target = items[449];
    const page = await openPage(browser, `${base()}/#/task/${taskId}?item=${target.id}`);
    const row = page.locator(`#item-${target.id}`);
    await row.waitFor({ timeout: 30_000 });
    await row.locator('.details').waitFor();
    expect(await row.locator('.num').textContent()).toBe('450.');
    expect(await row.locator('.text').textContent()).toBe(target.text);
  }, 60_000);

  it('the # menu offers items past the first page', async () => {
    const page = await openPage(browser, `${base()}/#/task/${taskId}`);
    await page.locator('.checklist > li').first().waitFor();
    await page.getByLabel('Comment on the task').click();
    await page.keyboard.type('See #0999');
    const option = page.getByRole('option', { name: `#499 ${label(999)}` });
    await option.waitFor({ timeout: 30_000 });
    await page.keyboard.press('Enter');
    const items = await itemIds(taskId);
    expect(await page.getByLabel('Comment on the task').inputValue()).toBe(`See [[#${items[498].id}]]`);
  }, 60_000);

  it('history is newest first, is not read with the task, and pages back to the first change', async () => {
    const page = await openPage(browser, `${base()}/#/task/${taskId}`);
    const bodies: string[] = [];
    page.on('request', (request) => { if (request.url().endsWith('/graphql')) bodies.push(request.postData() ?? ''); });
    await page.reload();
    await page.locator('.checklist > li').first().waitFor();
    expect(bodies.some((body) => body.includes('items { id text state }')), 'no list snapshots are read until History opens').toBe(false);
    const count = Number((await page.locator('.history summary h3 .muted').textContent())!.replace(/\D/g, ''));
    expect(count).toBeGreaterThan(1000);
    await server.ok(UPDATE_ITEM, { input: { id: (await itemIds(taskId))[0].id, state: 'BLOCKED', comment: 'newest change' } });
    await page.locator('.history summary h3').click();
    const events = page.locator('.history ol.events > li');
    await events.first().waitFor();
    expect(await events.first().locator('summary').textContent()).toMatch(/^item state/);
    // The first change is one action away, a page of rows however long the history.
    await page.getByRole('button', { name: 'Oldest ⇥' }).click();
    await expect.poll(() => events.last().locator('summary').textContent(), { timeout: 10_000 }).toMatch(/^task created/);
    expect(await events.count()).toBe(30);
  }, 300_000);
});

describe('200 sessions with helpers', () => {
  const ids: string[] = [];
  beforeAll(async () => {
    for (let batch = 0; batch < 4; batch += 1) {
      // Ten of them named, to be found by the words of their names.
      const start = (n: number) => (n >= 100 && n < 110 ? `startSession(input: { name: "Refund worker ${n}" })` : 'startSession');
      const made = await server.ok(`mutation { ${Array.from({ length: 50 }, (_, i) => `s${i}: ${start(batch * 50 + i)} { id }`).join(' ')} }`);
      ids.push(...Object.values(made).map((s: any) => s.id));
    }
    for (const id of ids.slice(0, 20)) {
      await server.ok(START_SESSION, { input: { parentId: id } });
      await server.ok(WRITE_TODOS, { todos: [{ content: 'Only step', status: 'DONE' }] }, { session: id });
      await server.ok(FINISH_SESSION, {}, { session: id });
    }
  }, 120_000);

  it('pages to the oldest session, filters finished ones and finds one by id', async () => {
    const page = await openPage(browser, `${base()}/#/sessions`);
    const list = page.locator('.session-list > li');
    await list.first().waitFor();
    expect(await list.count()).toBe(50);
    for (let i = 0; i < 5 && (await page.getByRole('button', { name: /Show more sessions/ }).count()); i += 1) {
      await page.getByRole('button', { name: /Show more sessions/ }).click();
      await page.waitForFunction((n) => document.querySelectorAll('.session-list > li').length > n, 50 * (i + 1));
    }
    expect(await list.count()).toBeGreaterThanOrEqual(200);
    await page.locator(`.session-list a[title="${ids[0]}"]`).waitFor();

    await page.getByRole('link', { name: 'Finished', exact: true }).click();
    await page.waitForFunction(() => document.querySelectorAll('.session-list > li').length === 20);
    expect(await page.locator('.session-list > li .active-dot').count()).toBe(0);

    await page.getByLabel('Find a session by id').fill(ids[7].slice(0, 12));
    await page.waitForFunction(() => document.querySelectorAll('.session-list > li').length === 1);
    await page.locator(`.session-list a[title="${ids[7]}"]`).click();
    // Named by its plan's first step, as it gave no name.
    await page.getByRole('heading', { level: 2, name: 'Only step' }).waitFor();
    await page.getByText(/started .* · last active/).waitFor();
    expect(await page.title()).toBe(`Session ${ids[7].slice(0, 8)} · taskbase`);
  }, 120_000);

  it('finds sessions by the words of their names, in any case, with the same search box', async () => {
    const page = await openPage(browser, `${base()}/#/sessions`);
    await page.locator('.session-list > li').first().waitFor();
    const search = page.getByLabel('Find a session by id or name');
    await search.fill('refund');
    await page.waitForFunction(() => document.querySelectorAll('.session-list > li').length === 10);
    expect(await page.locator('.tree h2 .count').textContent()).toBe('(10)');
    await search.fill('WORKER 105');
    await page.waitForFunction(() => document.querySelectorAll('.session-list > li').length === 1);
    await page.locator(`.session-list a[title="${ids[105]}"]`).click();
    await page.getByRole('heading', { level: 2, name: 'Refund worker 105' }).waitFor();
    await search.fill('refund 999');
    await page.getByText('No session’s id or name matches “refund 999”.').waitFor();
    const axe = await axeFindings(page);
    expect(axe.rules, 'axe on the sessions list with a search').toEqual([]);
  }, 120_000);
});

describe('rule-bound plans', () => {
  it('a step-ops step set Done asks for its validation inline, and the session and plan link to each other', async () => {
    const session = (await server.ok(START_SESSION, { input: { preset: 'STEP_OPS' } })).startSession.id as string;
    const plan = (await server.ok(SET_PLAN, { steps: ['Run the tests', 'Ship it'] }, { session })).setPlan.plan;
    const page = await openPage(browser, `${base()}/#/sessions/${session}`);
    await page.getByRole('link', { name: 'Open the plan as a checklist' }).click();
    // A session that gave no name is called by its plan's first step.
    await page.getByRole('link', { name: 'Run the tests', exact: true }).waitFor();
    await chooseState(page, 'Run the tests', 'DONE');
    const ask = page.getByLabel('This plan’s rules need a validation to set “Run the tests” done: what was checked?');
    await ask.waitFor();
    expect((await server.ok(`query($id: ID!) { task(id: $id) { items { nodes { state } } } }`, { id: plan.id })).task.items.nodes[0].state).toBe('PENDING');
    await ask.fill('npm test: 38 passed');
    await page.getByRole('button', { name: 'Set done' }).click();
    await page.locator(`#item-${plan.items.nodes[0].id} .note-line`, { hasText: 'npm test: 38 passed' }).waitFor();
    const step = (await server.ok(`query($id: ID!) { task(id: $id) { items { nodes { state note } } } }`, { id: plan.id })).task.items.nodes[0];
    expect(step).toEqual({ state: 'DONE', note: 'npm test: 38 passed' });
    await page.getByRole('link', { name: 'Run the tests', exact: true }).click();
    await page.getByRole('heading', { name: 'Run the tests' }).waitFor();
  }, 60_000);

  it("a person's edit of a locked plan-and-finish plan says so, and its history shows a person made it", async () => {
    const session = (await server.ok(START_SESSION, { input: { preset: 'PLAN_AND_FINISH' } })).startSession.id as string;
    const plan = (await server.ok(SET_PLAN, { steps: ['Read the code', 'Write the fix', 'Run the tests'] }, { session })).setPlan.plan;
    const page = await openPage(browser, `${base()}/#/task/${plan.id}`);
    await page.getByText('This plan is locked for its agent').waitFor();
    await rowAction(page, 'Write the fix', 'Rename');
    await page.getByLabel('New text for “Write the fix”').fill('Write the smallest fix');
    await page.keyboard.press('Enter');
    await stateButton(page, 'Write the smallest fix').waitFor();
    await page.locator('.history summary h3').click();
    await page.locator('.history ol.events > li').first().getByText('a person (dashboard)').waitFor();
    // The agent's rows name its session (its first step, with no name given), never its id.
    expect(await page.locator('.history ol.events > li').last().textContent()).toContain('· Read the code ·');
    // The session shows the table its agent reads: glyphs and task ids.
    await page.goto(`${base()}/#/sessions/${session}`);
    await page.locator('.agent-view .agent-text', { hasText: '[ ] 2. Write the smallest fix' }).waitFor();
  }, 60_000);
});

describe('an agent and a person editing one item at once', () => {
  it("shows theirs beside yours on a conflict; the person re-applies theirs or keeps the agent's; nothing is silently lost", async () => {
    const made = await server.ok(CREATE_TASK, { input: { title: 'Shared edit', goal: 'Original goal', domain: 'size/conflict', items: ['Draft the plan', 'Review it'] } });
    const [first] = made.createTask.items;
    const page = await openPage(browser, `${base()}/#/task/${made.createTask.task.id}`);
    await whenLive(page);
    await rowAction(page, 'Draft the plan', 'Rename');
    await page.getByLabel('New text for “Draft the plan”').fill('Draft the rollout plan');
    // The agent renames the same item while the person types.
    await server.ok(UPDATE_ITEM, { input: { id: first.id, text: 'Draft the migration plan' } });
    await stateButton(page, 'Draft the migration plan').waitFor();
    expect(await page.getByLabel('New text for “Draft the migration plan”').inputValue(), 'a live change never erases what is typed').toBe('Draft the rollout plan');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const conflict = page.locator('.conflict');
    await conflict.waitFor();
    expect(await conflict.textContent()).toContain('Draft the rollout plan');
    expect(await conflict.textContent()).toContain('Draft the migration plan');
    expect((await server.ok(`query($id: ID!) { item(id: $id) { text } }`, { id: first.id })).item.text).toBe('Draft the migration plan');
    await page.getByRole('button', { name: 'Apply mine again' }).click();
    await stateButton(page, 'Draft the rollout plan').waitFor();
    expect((await server.ok(`query($id: ID!) { item(id: $id) { text } }`, { id: first.id })).item.text).toBe('Draft the rollout plan');

    // The goal: the agent's edit wins when the person keeps it.
    await page.getByRole('button', { name: 'Edit goal' }).click();
    await page.getByLabel('Goal', { exact: true }).fill('My goal');
    const version = (await server.ok(`query($id: ID!) { task(id: $id) { version } }`, { id: made.createTask.task.id })).task.version;
    await server.ok(EDIT_TASK, { input: { id: made.createTask.task.id, goal: 'Agent goal', expectedVersion: version } });
    await page.locator('.goal').getByText('Agent goal').waitFor({ state: 'detached' }).catch(() => undefined);
    expect(await page.getByLabel('Goal', { exact: true }).inputValue()).toBe('My goal');
    await page.getByRole('button', { name: 'Save goal' }).click();
    await page.locator('.conflict').getByText('Agent goal').waitFor();
    await page.getByRole('button', { name: 'Keep theirs' }).click();
    await page.locator('.goal').getByText('Agent goal').waitFor();
    expect((await server.ok(`query($id: ID!) { task(id: $id) { goal } }`, { id: made.createTask.task.id })).task.goal).toBe('Agent goal');

    // Showing deleted items rereads the list, never the comment being typed.
    await page.getByLabel('Comment on the task').fill('Half-typed thought');
    await page.getByLabel('Show deleted items').check();
    await page.getByLabel('Show deleted items').uncheck();
    expect(await page.getByLabel('Comment on the task').inputValue()).toBe('Half-typed thought');

    // An agent changing another item is no conflict: the person's state change lands at the new version.
    await server.ok(UPDATE_ITEM, { input: { id: made.createTask.items[1].id, state: 'IN_PROGRESS' } });
    await chooseState(page, 'Draft the rollout plan', 'DONE');
    await page.waitForFunction(() => document.querySelectorAll('.conflict').length === 0);
    await expect.poll(async () => (await server.ok(`query($id: ID!) { item(id: $id) { state } }`, { id: first.id })).item.state).toBe('DONE');
  }, 60_000);
});

describe('live on an open 300-item task', () => {
  it('downloads per change a small multiple of what changed, not the task', async () => {
    const taskId = await bigTask('size/live', 300);
    const items = await itemIds(taskId);
    const page = await openPage(browser, `${base()}/#/task/${taskId}`);
    await page.locator('.checklist > li').first().waitFor();
    await whenLive(page);
    await page.evaluate(() => {
      (globalThis as any).longTasks = [];
      new PerformanceObserver((list) => { for (const entry of list.getEntries()) (globalThis as any).longTasks.push(entry.duration); }).observe({ type: 'longtask' as 'mark', buffered: false });
    });
    const whole = (await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: `query($id: ID!) { task(id: $id) { items(first: 200) { nodes { id number text state deleted note added related { id } } } } }`, variables: { id: taskId } }) }).then((r) => r.text())).length;
    const meter = await countDownloads(page);
    // What the page asks while the agent works: never the task's head, never a page of its items (the whole task again).
    const rereads: string[] = [];
    page.on('request', (request) => {
      const query = request.url().endsWith('/graphql') ? (request.postDataJSON() as { query?: string } | null)?.query : undefined;
      if (query === TASK_HEAD || query === TASK_ITEMS) rereads.push(query === TASK_HEAD ? 'the task head' : 'a page of items');
    });
    // 40 changes of an agent, 10 a second, on every other item of the first 80: half on rows the page shows, half on
    // rows it has not loaded (which it must not download). Each change answers about 300 bytes to the agent.
    const states = ['IN_PROGRESS', 'DONE', 'BLOCKED'] as const;
    let changed = 0;
    for (let i = 0; i < 40; i += 1) {
      const answer = await server.gql(UPDATE_ITEM, { input: { id: items[(2 * i) % 300].id, state: states[i % 3], comment: `step ${i}` } });
      changed += JSON.stringify(answer.data).length;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // The page shows every change: each row on screen says what the server says of its item. Its downloads are
    // counted once it does, rather than after a fixed wait.
    const onScreen = await rows(page);
    const told = await Promise.all(items.slice(0, onScreen).map(async (item) => (await server.ok(`query($id: ID!) { item(id: $id) { state note } }`, { id: item.id })).item));
    await expect.poll(() => page.locator('.checklist > li .state-button').evaluateAll((buttons) => buttons.map((button) => button.getAttribute('data-state'))), { timeout: 15_000 })
      .toEqual(told.map((item) => item.state));
    const blocked = page.locator('.item.stuck').first();
    await blocked.locator('.stuck-label').waitFor();
    expect(await blocked.locator('.stuck-label').textContent()).toMatch(/^Stuck — blocked: step \d+$/);
    const bytes = meter.bytes();
    const longTasks: number[] = await page.evaluate(() => (globalThis as any).longTasks);
    console.log(`[live] 40 agent changes on a 300-item task: ${bytes} bytes in ${meter.requests()} requests; the agent's answers were ${changed} bytes; one read of the items is ${whole} bytes; long tasks over 100 ms: ${longTasks.filter((d) => d > 100).length} (longest ${Math.round(Math.max(0, ...longTasks))} ms)`);
    await meter.stop();
    expect(bytes, 'at most about 10× the changed data').toBeLessThan(changed * 10);
    expect(rereads, 'no change reads the task or its list again').toEqual([]);
  }, 180_000);
});

describe('stuck work', () => {
  it('names blocked and failed items as stuck with their reason, and marks the task stuck in lists and search', async () => {
    const made = await server.ok(CREATE_TASK, { input: { title: 'Stuck migration', goal: 'Move the ledger', domain: 'size/stuck', items: ['Copy rows', 'Verify sums'] } });
    await server.ok(UPDATE_ITEM, { input: { id: made.createTask.items[0].id, state: 'BLOCKED', comment: 'waiting for DB access' } });
    await server.ok(UPDATE_ITEM, { input: { id: made.createTask.items[1].id, state: 'FAILED', comment: 'sums differ by 3' } });
    const page = await openPage(browser, `${base()}/#/domains/size/stuck`);
    await page.getByRole('row', { name: /Stuck migration/ }).getByText('Stuck', { exact: true }).waitFor();
    await page.getByRole('link', { name: 'Stuck migration' }).click();
    await page.getByText('Stuck — blocked: waiting for DB access').waitFor();
    await page.getByText('Stuck — failed: sums differ by 3').waitFor();
    await page.getByText('stuck · 2').waitFor();

    // Needs attention lists each stuck item with its reason, and a finished session's blocked step, in one inbox.
    const session = (await server.ok(START_SESSION, {})).startSession.id as string;
    await server.ok(WRITE_TODOS, { todos: [{ content: 'Ship it', status: 'DONE' }, { content: 'Tell the team', status: 'BLOCKED' }] }, { session });
    await server.ok(FINISH_SESSION, {}, { session });
    await page.getByRole('link', { name: 'Needs attention' }).click();
    const inbox = page.getByRole('table', { name: 'Stuck items, newest first' });
    await inbox.getByRole('row', { name: /Copy rows/ }).getByText('waiting for DB access').waitFor();
    await inbox.getByRole('row', { name: /Verify sums/ }).getByText('sums differ by 3').waitFor();
    await inbox.getByRole('row', { name: /Tell the team/ }).getByRole('link', { name: /plan of .*\(finished\)/ }).waitFor();
    const { totalCount } = (await server.ok('{ stuckItems(first: 1) { totalCount } }')).stuckItems;
    expect(await page.getByRole('heading', { name: /^Stuck items/ }).textContent()).toBe(`Stuck items (${totalCount})`);
    await page.locator(`main a[title="${session}"]`).waitFor();
    expect(await page.title()).toBe('Needs attention · taskbase');
    expect((await axeFindings(page)).rules, 'axe-core on Needs attention').toEqual([]);
    if (process.env.SHOT) await page.screenshot({ path: process.env.SHOT, fullPage: true });
  }, 60_000);
});

describe('quality a user notices', () => {
  let taskId: string;
  let noteId: string;
  let session: string;
  beforeAll(async () => {
    const long = Array.from({ length: 30 }, (_, i) => `Paragraph ${i + 1} of a long goal.`).join('\n');
    const made = await server.ok(CREATE_TASK, { input: { title: 'Quality pass', goal: long, domain: 'size/quality/web', items: ['Check contrast', 'Check keyboard'] } });
    taskId = made.createTask.task.id;
    noteId = (await server.ok(CREATE_NOTE, { input: { title: 'Retry policy', body: 'Webhooks retry with backoff.\nEach retry is logged with its attempt number.', domain: 'size/quality' } })).createNote.id;
    session = (await server.ok(START_SESSION, {})).startSession.id;
    await server.ok(WRITE_TODOS, { todos: [{ content: 'Audit the page', status: 'IN_PROGRESS' }] }, { session });
  }, 60_000);

  it('axe-core finds nothing critical or serious on any view', async () => {
    const views: [string, string][] = [
      ['domains', '#/domains'], ['domain', '#/domains/size/quality'], ['task', `#/task/${taskId}`], ['sessions', '#/sessions'],
      ['session', `#/sessions/${session}`], ['search', '#/search?q=retry'], ['reminders', '#/maintenance/reminders'], ['needs attention', '#/attention'],
    ];
    const counts: Record<string, string> = {};
    const failures: string[] = [];
    // Every view in light mode, and the busiest ones again in dark mode (its own colours, its own contrast).
    const runs = [...views.map(([name, hash]) => ({ name, hash, dark: false })), ...views.filter(([name]) => name === 'task' || name === 'session').map(([name, hash]) => ({ name: `${name} (dark)`, hash, dark: true }))];
    // One page goes from view to view by its links' hashes, as a person does: a fresh page per view spent most of
    // this test starting a browser context, loading the app and loading axe-core again for each.
    const page = await openPage(browser, `${base()}/#/`);
    await page.locator('main h2').first().waitFor();
    for (const { name, hash, dark } of runs) {
      await page.emulateMedia({ colorScheme: dark ? 'dark' : 'light' });
      const before = await page.title();
      await page.evaluate((next) => { location.hash = next; }, hash);
      // Each view names itself in the title as it first renders, so a new title is the new view (no two views in a row share one).
      await page.waitForFunction((old) => document.title !== old, before);
      await page.locator('main h2').first().waitFor();
      await page.locator('main .muted', { hasText: 'Loading…' }).first().waitFor({ state: 'detached' });
      const found = await axeFindings(page);
      counts[name] = `${found.critical} critical, ${found.serious} serious`;
      if (found.critical || found.serious) failures.push(`${name}: ${found.rules.join('; ')}`);
    }
    expect(page.errors).toEqual([]);
    await page.context().close();
    console.log(`[axe] ${JSON.stringify(counts)}`);
    expect(failures).toEqual([]);
  }, 300_000);

  it('has a skip link, per-view titles, kept line breaks with long text collapsed, and fits 390 px', async () => {
    const page = await openPage(browser, `${base()}/#/task/${taskId}`, { width: 390, height: 844 });
    await page.getByRole('heading', { name: 'Quality pass' }).waitFor();
    expect(await page.title()).toBe('Quality pass · task · taskbase');
    await page.keyboard.press('Tab');
    const skip = page.getByRole('link', { name: 'Skip to content' });
    expect(await skip.evaluate((el) => el === (el.ownerDocument as any).activeElement)).toBe(true);
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('MAIN');
    const goal = page.locator('.goal .keep-lines');
    expect(await goal.innerText()).toContain('Paragraph 1 of a long goal.\nParagraph 2 of a long goal.');
    await page.locator('.goal').getByRole('button', { name: 'more' }).click();
    await page.locator('.goal').getByRole('button', { name: 'less' }).waitFor();
    for (const hash of ['#/domains/size/quality', `#/task/${taskId}`, '#/sessions', `#/sessions/${session}`, '#/search?q=retry']) {
      await page.goto(`${base()}/${hash}`);
      await page.locator('main h2').first().waitFor();
      await page.waitForLoadState('networkidle');
      expect(await page.evaluate(() => document.documentElement.scrollWidth), `${hash} fits 390 px`).toBeLessThanOrEqual(390);
    }
  }, 90_000);

  it('search results fill the main pane with snippets, and a note hit opens the note', async () => {
    const page = await openPage(browser, `${base()}/#/domains`);
    await page.getByLabel('Search the knowledge base').fill('attempt');
    await page.keyboard.press('Enter');
    const hit = page.locator('main .hits li').first();
    await hit.waitFor();
    expect(await hit.locator('.snippet mark').textContent()).toBe('attempt');
    expect(await page.title()).toBe('Search: attempt · taskbase');
    await hit.getByRole('link', { name: 'Retry policy' }).click();
    const opened = page.locator(`#opened-note-${noteId} details[open]`);
    await opened.waitFor();
    expect(await opened.innerText()).toContain('Webhooks retry with backoff.\nEach retry is logged');
    await page.reload();
    await opened.waitFor();
  }, 60_000);

  it('dark mode follows the system setting', async () => {
    const page = await openPage(browser, `${base()}/#/domains`, { dark: true });
    await page.locator('main h2').first().waitFor();
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const [r, g, b] = background.match(/\d+/g)!.map(Number);
    expect(r + g + b).toBeLessThan(150);
  });

  it('the live badge says when the token is refused instead of reconnecting forever', async () => {
    const guarded = await startTestServer({ env: { TASKBASE_TOKENS: 'writer-secret' } });
    try {
      const page = await openPage(browser, `${guarded.url.replace(/\/graphql$/, '')}/#/domains`, { token: 'stale-token' });
      await page.locator('[data-live="refused"]', { hasText: 'Token refused' }).waitFor({ timeout: 15_000 });
      await page.getByLabel('Bearer token').fill('writer-secret');
      await page.getByRole('button', { name: 'Use this token' }).click();
      await whenLive(page);
    } finally {
      await guarded.close();
    }
  }, 60_000);

  it('says a GraphQL variable refusal in words', async () => {
    const page = await openPage(browser, `${base()}/#/maintenance/reminders`);
    const interval = page.getByLabel('Interval (minutes, 1–1440)');
    await interval.fill('1.5');
    await page.getByRole('button', { name: 'Save reminder settings' }).click();
    const refusal = page.locator('form .refusal[role=alert]');
    await refusal.waitFor();
    expect(await refusal.textContent()).toBe('The interval minutes must be a whole number; 1.5 is not one.');
  });
});
