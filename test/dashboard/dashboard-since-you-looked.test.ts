/**
 * The person's loop, in a real browser (Debian's chromium), one seeded server
 * for the file: a person's drop of an agent's step shows "the agent has not
 * seen this yet" on its row and in Agents now, then "seen by <agent>" once the
 * agent's next MCP call has told it, live; a task's history of 5,000 changes
 * names each session and reaches its oldest change in one action, filtered by
 * kind and agent; the Activity view reads the change log by name, grouped by
 * task, filtered in the address, with what changed since this browser last
 * looked marked until "Mark all seen"; a finished session left with a blocked
 * step reads as stuck. axe-core finds nothing critical or serious on these
 * views. DASHBOARD_SCREENSHOTS=docs writes the screenshots to docs/.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLAIM_ITEM, FINISH_SESSION, SET_PLAN, UPDATE_ITEM, UPDATE_STEP } from '../fixtures/documents.js';
import { freshDomain } from '../fixtures/knowledge.js';
import { connectMcp } from '../fixtures/mcp.js';
import { startSession } from '../fixtures/sessions.js';
import { createTask } from '../fixtures/tasks.js';
import { axeFindings, dashboardSuite, openPage, whenLive } from '../fixtures/browser.js';
import { applyDelta, type ListDelta } from '../../src/domain/list-delta.js';
import type { Snapshot } from '../../src/domain/list-diff.js';

const { server, browser, base } = dashboardSuite();
const shots = process.env.DASHBOARD_SCREENSHOTS ?? fs.mkdtempSync(path.join(os.tmpdir(), 'taskbase-shots-'));
afterAll(() => { if (!process.env.DASHBOARD_SCREENSHOTS) fs.rmSync(shots, { recursive: true, force: true }); });

type EventRow = { action: string; sessionId: string | null; items: string; changes: string; chainLength: number | string; at: string };
const quoted = (text: string) => `'${text.replaceAll("'", "''")}'`;

/**
 * Appends `times` copies of a task's last `count` history rows, in one
 * transaction, each a whole list (a checkpoint, as rows written before deltas
 * are): the history a long run of the same changes leaves, without a
 * transaction per change. The task's version moves on by as many.
 */
async function repeatHistory(taskId: string, count: number, times: number): Promise<void> {
  const id = Number(taskId);
  expect(Number.isInteger(id)).toBe(true);
  const db = server.app.services.db;
  const rows: EventRow[] = await db.reader.query(
    `SELECT "action", "sessionId", "items", "changes", "chainLength", "at" FROM "task_events" WHERE "taskId" = ${id} ORDER BY "id"`,
  );
  // Each row's whole list: a delta row's is the list before it with its delta applied.
  let list: Snapshot[] = [];
  const lists = rows.map((row) => (list = Number(row.chainLength) === 0 ? JSON.parse(row.items) as Snapshot[] : applyDelta(list, JSON.parse(row.items) as ListDelta)));
  const start = Date.parse(rows.at(-1)!.at);
  const at = (n: number) => new Date(start + n + 1).toISOString();
  const values = Array.from({ length: count * times }, (_, n) => {
    const index = rows.length - count + (n % count);
    const row = rows[index]!;
    return `(${id}, '${at(n)}', ${quoted(row.action)}, ${row.sessionId === null ? 'NULL' : quoted(row.sessionId)}, ${quoted(JSON.stringify(lists[index]))}, 0, 0, ${quoted(row.changes)})`;
  });
  await db.transaction(async (manager) => {
    for (let from = 0; from < values.length; from += 400) {
      await manager.query(`INSERT INTO "task_events" ("taskId", "at", "action", "sessionId", "items", "chainLength", "chainBytes", "changes") VALUES ${values.slice(from, from + 400).join(', ')}`);
    }
    await manager.query(`UPDATE "memories" SET "version" = "version" + ${values.length}, "updatedAt" = '${at(values.length - 1)}' WHERE "id" = ${id}`);
  });
}

/** A session id (a UUID) anywhere in a text: people read names. */
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

describe('since you last looked', () => {
  it("shows a person's drop of an agent's step as not seen yet, then seen by the agent after its next call, live", async () => {
    const mcp = await connectMcp(server, { tools: 'step-ops' });
    try {
      await mcp.ok('todo', { tasks: ['Build the image', 'Deploy to staging', 'Smoke test'] });
      const sessionId = (await mcp.sessionId())!;
      const planId = (await server.ok('query($id: ID!) { session(id: $id) { plan { id title items { nodes { id text } } } } }', { id: sessionId })).session.plan;
      expect(planId.title).toBe('Plan of taskbase-test');
      const smoke = planId.items.nodes.find((item: { text: string }) => item.text === 'Smoke test');

      const page = await openPage(browser, `${base()}/#/task/${planId.id}`);
      await whenLive(page);
      // Live comes before the task's first read lands on a loaded machine: wait for the title, not the first frame.
      await expect.poll(() => page.locator('#task-title').innerText(), { timeout: 5000 }).toBe('Plan of taskbase-test');
      const agents = await openPage(browser, `${base()}/#/agents`);
      await whenLive(agents);
      const agentRow = agents.locator('table.agents-table tbody tr', { hasText: 'taskbase-test' });
      await agentRow.waitFor();

      // A person drops the step (a call without a session, as the dashboard makes it).
      await server.ok(UPDATE_ITEM, { input: { id: smoke.id, state: 'DROPPED', comment: 'no staging today' } });
      const row = page.locator(`#item-${smoke.id}`);
      await row.locator('[data-steering="unseen"]').waitFor({ timeout: 3000 });
      expect(await row.locator('.steering').innerText()).toBe('⚠ the agent has not seen this yet');
      await agentRow.locator('[data-steering="unseen"]').waitFor({ timeout: 3000 });
      expect(await agentRow.locator('.steering').innerText()).toMatch(/^A person changed the state of “Smoke test” at .+: ⚠ the agent has not seen this yet$/);
      const found = await axeFindings(page);
      expect(found.critical + found.serious, found.rules.join('\n')).toBe(0);
      await page.screenshot({ path: path.join(shots, 'dashboard-steering-unseen.png'), fullPage: true });

      // The agent's next call tells it; both rows say so without a reload.
      const told = await mcp.ok('todo', { index: 1, status: 'in_progress' });
      expect(told.text).toContain('Since your last call');
      await row.locator('[data-steering="seen"]').waitFor({ timeout: 3000 });
      expect(await row.locator('.steering').innerText()).toMatch(/^✓ seen by taskbase-test at .+/);
      await agentRow.locator('[data-steering="seen"]').waitFor({ timeout: 3000 });
      expect(await agentRow.locator('.steering').innerText()).toMatch(/✓ seen by taskbase-test at .+/);
      const agentsFound = await axeFindings(agents);
      expect(agentsFound.critical + agentsFound.serious, agentsFound.rules.join('\n')).toBe(0);
      expect(page.errors).toEqual([]);
      expect(agents.errors).toEqual([]);
      await page.close();
      await agents.close();
    } finally {
      await mcp.close();
    }
  }, 60_000);

  it('reaches the oldest of 5,000 history changes in one action, each row naming the session, filtered by kind and agent', async () => {
    const domain = freshDomain('history');
    const { task, items: [first, second] } = await createTask(server, ['Write the migration', 'Review the schema'], { domain, title: 'Billing schema' });
    const agent = await startSession(server, { name: 'Migration agent' });
    await server.ok(CLAIM_ITEM, { input: { id: first.id, ttlSeconds: 3600 } }, { session: agent });
    // 5,000 state changes, 100 to a request: the agent works its item, a person the other. The first 200 go
    // through the API, each its own transaction as agents make them; the other 4,800 repeat the last 100
    // rows, written through the database in one transaction (as bench/load.mjs seeds), since 4,800 more
    // transactions cost two minutes on PostgreSQL and prove nothing the dashboard's reads do not.
    const states = ['IN_PROGRESS', 'BLOCKED', 'PENDING', 'DONE'];
    for (let batch = 0; batch < 2; batch += 1) {
      const fields = Array.from({ length: 100 }, (_, i) => `u${i}: updateItem(input: { id: "${(batch * 100 + i) % 2 ? second.id : first.id}", state: ${states[(batch * 100 + i) % 4]} }) { id }`);
      // The agent's half is sent with its session; the person's without.
      const mine = fields.filter((_, i) => (batch * 100 + i) % 2 === 0);
      const theirs = fields.filter((_, i) => (batch * 100 + i) % 2 === 1);
      await server.ok(`mutation { ${theirs.join(' ')} }`);
      await server.ok(`mutation { ${mine.join(' ')} }`, {}, { session: agent });
    }
    await repeatHistory(task.id, 100, 48);
    const total = (await server.ok('query($id: ID!) { task(id: $id) { history(first: 1) { totalCount } } }', { id: task.id })).task.history.totalCount;
    expect(total).toBeGreaterThan(5000);

    const page = await openPage(browser, `${base()}/#/task/${task.id}`);
    await page.locator('.history summary h3').click();
    const events = page.locator('.history ol.events > li');
    await events.first().waitFor();
    expect(await events.count()).toBe(30);
    const newest = await events.allInnerTexts();
    expect(newest.join('\n')).not.toMatch(UUID);
    expect(newest.join('\n')).not.toMatch(/agent [0-9a-f]{8}/);
    // The newest 30 are the agent's last 30 of its request of 50.
    expect(newest.every((text) => /^item state — Write the migration: (To do → Doing|Doing → To do) · Migration agent · /.test(text)), newest[0]).toBe(true);

    // The oldest change, in one action, whatever the history's length.
    const started = Date.now();
    await page.getByRole('button', { name: 'Oldest ⇥' }).click();
    await expect.poll(() => events.last().locator('summary').innerText(), { timeout: 5000 }).toMatch(/^task created/);
    const oldestMs = Date.now() - started;
    expect(await events.count()).toBe(30);
    expect(await page.getByRole('button', { name: 'Oldest ⇥' }).isDisabled()).toBe(true);
    await events.nth(28).locator('summary').innerText().then((text) => expect(text).toMatch(/claimed by Migration agent/));
    // And back, a page at a time.
    await page.getByRole('button', { name: '← Newer' }).click();
    await expect.poll(() => events.last().locator('summary').innerText(), { timeout: 5000 }).not.toMatch(/^task created/);
    await page.getByRole('button', { name: '⇤ Newest' }).click();
    await expect.poll(() => events.first().locator('summary').innerText(), { timeout: 5000 }).toBe(newest[0].split('\n')[0]);

    // Filtered by agent: only the agent's rows, counted.
    await page.getByLabel('Made by').selectOption({ label: 'Migration agent' });
    await expect.poll(async () => (await events.allInnerTexts()).every((text) => text.includes('· Migration agent')), { timeout: 5000 }).toBe(true);
    await expect.poll(() => page.locator('.history summary h3 .muted').innerText()).toMatch(/^\(2501 of \d+\)$/);
    // By kind: claims only.
    await page.getByLabel('Kind').selectOption({ label: 'Claims' });
    await expect.poll(() => events.allInnerTexts(), { timeout: 5000 }).toEqual([expect.stringMatching(/^item claimed — ⚑ Write the migration: claimed by Migration agent/)]);
    // A row opened shows the list as it stood, filtered or not.
    await events.first().locator('summary').click();
    await events.first().locator('.cols ol li').first().waitFor();
    expect(await events.first().locator('.cols ol').innerText()).toMatch(/Write the migration[\s\S]*Review the schema/);
    const found = await axeFindings(page);
    expect(found.critical + found.serious, found.rules.join('\n')).toBe(0);
    await page.getByLabel('Kind').selectOption({ label: 'All changes' });
    await page.getByLabel('Made by').selectOption({ label: 'Anyone' });
    await page.getByRole('button', { name: 'Oldest ⇥' }).click();
    await expect.poll(() => events.last().locator('summary').innerText(), { timeout: 5000 }).toMatch(/^task created/);
    await page.screenshot({ path: path.join(shots, 'dashboard-history.png'), fullPage: true });
    console.log(`History: the oldest of ${total} changes shown ${oldestMs} ms after one click`);
    expect(page.errors).toEqual([]);
    await page.close();
  }, 180_000);

  it('reads the activity by name, grouped by task, filtered in the address, with what changed since this browser last looked', async () => {
    const domain = freshDomain('activity');
    const { items: [step] } = await createTask(server, ['Ship the release'], { domain, title: 'Release 2.0' });
    const agent = await startSession(server, { name: 'Release agent' });
    const page = await openPage(browser, `${base()}/#/activity?domain=${domain}`);
    await whenLive(page);
    await page.locator('.activity-group').first().waitFor();
    // A first visit starts "since you last looked" now: nothing before it is new.
    expect(await page.locator('.activity .unread').count()).toBe(0);
    await server.ok(UPDATE_ITEM, { input: { id: step.id, state: 'IN_PROGRESS' } }, { session: agent });
    await server.ok(UPDATE_ITEM, { input: { id: step.id, state: 'BLOCKED', comment: 'needs sign-off' } });
    const rows = page.locator('.activity-rows li');
    await expect.poll(() => rows.count(), { timeout: 3000 }).toBe(3);
    expect(await rows.allInnerTexts()).toEqual([
      expect.stringMatching(/^● new A person changed a state: Ship the release: Doing → Blocked /),
      expect.stringMatching(/^● new Release agent changed a state: Ship the release: To do → Doing /),
      expect.stringMatching(/^A person created the task: \+ Ship the release \(To do\) /),
    ]);
    expect(await page.locator('.activity-group h3').allInnerTexts()).toEqual([expect.stringMatching(/^Release 2\.0 · activity\S+ ● new$/)]);
    await expect.poll(() => page.locator('header nav a[href="#/activity"]').innerText(), { timeout: 6000 }).toMatch(/^Activity\s+2 new$/);
    expect(await page.locator('.activity').innerText()).not.toMatch(UUID);
    await page.screenshot({ path: path.join(shots, 'dashboard-activity.png'), fullPage: true });

    // The agent filter goes in the address, so the view can be shared.
    await page.getByLabel('Agent').selectOption({ label: 'Release agent' });
    await page.waitForURL((url) => url.hash.includes(`agent=${agent}`));
    await expect.poll(() => rows.count(), { timeout: 3000 }).toBe(1);
    const shared = await openPage(browser, page.url());
    await shared.locator('.activity-rows li').first().waitFor();
    expect(await shared.locator('.activity-rows li').allInnerTexts()).toEqual([expect.stringMatching(/Release agent changed a state: Ship the release: To do → Doing/)]);
    await shared.close();

    const found = await axeFindings(page);
    expect(found.critical + found.serious, found.rules.join('\n')).toBe(0);
    await page.getByRole('button', { name: 'Mark all seen' }).click();
    await expect.poll(() => page.locator('.activity .unread').count()).toBe(0);
    await expect.poll(() => page.locator('header nav a[href="#/activity"]').innerText(), { timeout: 6000 }).toBe('Activity');
    expect(page.errors).toEqual([]);
    await page.close();
  }, 60_000);

  it("marks a domain's task rows changed since this browser last looked at each task, until the task is opened", async () => {
    const domain = freshDomain('unread');
    const { items: [charge] } = await createTask(server, ['Key charges by event id'], { domain, title: 'Billing queue' });
    await createTask(server, ['Write the runbook'], { domain, title: 'Runbook' });
    const agent = await startSession(server, { name: 'Billing agent' });
    const page = await openPage(browser, `${base()}/#/domains/${domain}`);
    await whenLive(page);
    const row = (title: string) => page.getByRole('row', { name: new RegExp(title) });
    await row('Runbook').waitFor();
    // A first visit starts "since you last looked" now: nothing before it is new.
    expect(await page.locator('table.tasks .unread').count()).toBe(0);

    await server.ok(UPDATE_ITEM, { input: { id: charge.id, state: 'IN_PROGRESS' } }, { session: agent });
    await row('Billing queue').locator('.unread', { hasText: '● new' }).waitFor({ timeout: 5000 });
    expect(await row('Runbook').locator('.unread').count(), 'an unchanged task is not marked').toBe(0);
    expect((await axeFindings(page)).rules, 'axe on the domain table with an unread row').toEqual([]);

    // Opening the task clears its marker, in this tab and after a reload.
    await row('Billing queue').getByRole('link', { name: 'Billing queue' }).click();
    await page.getByRole('heading', { name: 'Billing queue' }).waitFor();
    await page.goBack();
    await row('Billing queue').waitFor();
    expect(await row('Billing queue').locator('.unread').count()).toBe(0);
    await page.reload();
    await row('Billing queue').waitFor();
    expect(await row('Billing queue').locator('.unread').count()).toBe(0);

    // The next change after that look marks it again, on the board as in the table.
    await server.ok(UPDATE_ITEM, { input: { id: charge.id, state: 'BLOCKED', comment: 'needs the event id index' } }, { session: agent });
    await row('Billing queue').locator('.unread').waitFor({ timeout: 5000 });
    await page.getByRole('link', { name: 'Board' }).click();
    await page.locator('.board .card', { hasText: 'Billing queue' }).locator('.unread').waitFor();
    expect(await page.locator('.board .card', { hasText: 'Runbook' }).locator('.unread').count()).toBe(0);
    expect(page.errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('says a finished session left with a blocked step is stuck, not wrapping up', async () => {
    const session = await startSession(server, { name: 'Deploy agent', preset: 'STEP_OPS' });
    await server.ok(SET_PLAN, { steps: ['Build the image', 'Deploy to staging', 'Smoke test', 'Announce'] }, { session });
    for (const [step, state] of [[1, 'DONE'], [2, 'DONE'], [3, 'BLOCKED'], [4, 'DROPPED']] as const) {
      await server.ok(UPDATE_STEP, { input: { step, state, note: `step ${step} settled` } }, { session });
    }
    await server.ok(FINISH_SESSION, {}, { session });
    const page = await openPage(browser, `${base()}/#/sessions/${session}`);
    await page.locator('.status-line').first().waitFor();
    expect(await page.locator('.status-line').first().innerText()).toBe('4/4 · stuck: Smoke test (blocked)');
    expect(page.errors).toEqual([]);
    await page.close();
  }, 30_000);
});
