/**
 * "Agents now", the dashboard's home page, in a real browser (Debian's
 * chromium): one row per working session with its name and tool set, what it
 * holds (claims, the step in progress, for how long), when it last did
 * anything, a stuck / stale / idle flag, and what a stuck step waits on;
 * sorted by what needs a person first; changed live by an agent's call; the
 * latest finished sessions below with their summary. axe-core finds nothing
 * critical or serious. 200 working sessions render. DASHBOARD_SCREENSHOTS=docs
 * writes docs/dashboard-agents.png (a temp folder otherwise).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLAIM_ITEM, FINISH_SESSION, SET_PLAN, UPDATE_STEP } from '../fixtures/documents.js';
import { freshDomain } from '../fixtures/knowledge.js';
import { startSession, writeTodos } from '../fixtures/sessions.js';
import { createTask } from '../fixtures/tasks.js';
import { axeFindings, dashboardSuite, openPage, whenLive } from '../fixtures/browser.js';

// Evaluated in the page, not in Node.
declare const document: { documentElement: { scrollWidth: number } };

// The server records times by this clock: a session "last active 15 min ago" is one made with it set back 15 min.
let offsetMs = 0;
const { server, browser, base } = dashboardSuite({ clock: () => new Date(Date.now() + offsetMs) });
const shots = process.env.DASHBOARD_SCREENSHOTS ?? fs.mkdtempSync(path.join(os.tmpdir(), 'taskbase-shots-'));
afterAll(() => { if (!process.env.DASHBOARD_SCREENSHOTS) fs.rmSync(shots, { recursive: true, force: true }); });

/** Runs `work` with the server's clock `minutes` in the past. */
async function minutesAgo<T>(minutes: number, work: () => Promise<T>): Promise<T> {
  offsetMs = -minutes * 60_000;
  try { return await work(); } finally { offsetMs = 0; }
}

/** The rows of the working agents, top to bottom, as their text. */
async function rows(page: import('playwright-core').Page): Promise<string[]> {
  return page.locator('table.agents-table tbody tr').allInnerTexts();
}

describe('Agents now', () => {
  it('shows each working agent with what it holds, the stuck, stale and idle first, the finished below, and an agent\'s change live', async () => {
    const domain = freshDomain('agents');
    const { items: [migration] } = await createTask(server, ['Write the migration', 'Review the schema'], { domain, title: 'Billing schema' });

    await minutesAgo(90, async () => {
      const id = await startSession(server, { name: 'Gone quiet' });
      await writeTodos(server, id, [['Rename the columns', 'IN_PROGRESS']]);
    });
    const idle = await minutesAgo(15, async () => {
      const id = await startSession(server, { name: 'Thinking agent' });
      await writeTodos(server, id, [['Draft the changelog', 'IN_PROGRESS']]);
      return id;
    });
    const holder = await startSession(server, { name: 'Migration agent' });
    await server.ok(CLAIM_ITEM, { input: { id: migration.id, ttlSeconds: 900 } }, { session: holder });
    await writeTodos(server, holder, [['Migrate the schema', 'IN_PROGRESS'], ['Backfill the rows', 'PENDING']]);
    const stuck = await startSession(server, { name: 'Deploy agent', preset: 'STEP_OPS' });
    await server.ok(SET_PLAN, { steps: ['Build the image', 'Deploy to staging'] }, { session: stuck });
    await server.ok(UPDATE_STEP, { input: { step: 1, state: 'DONE', note: 'image built: 212 MB' } }, { session: stuck });
    await server.ok(UPDATE_STEP, { input: { step: 2, state: 'BLOCKED', note: 'waiting for the staging credentials' } }, { session: stuck });
    const finisher = await startSession(server, { name: 'Bug fixer', preset: 'PLAN_AND_FINISH' });
    await server.ok(SET_PLAN, { steps: ['Fix the rounding bug', 'Add a regression test'] }, { session: finisher });
    await server.ok(UPDATE_STEP, { input: { step: 1, state: 'DONE', note: 'totals match to the cent' } }, { session: finisher });
    await server.ok(UPDATE_STEP, { input: { step: 2, state: 'BLOCKED', note: 'CI is down' } }, { session: finisher });
    await server.ok(FINISH_SESSION, {}, { session: finisher });
    await startSession(server, { name: 'Just started' });

    const page = await openPage(browser, `${base()}/`, { width: 1280, height: 800 });
    await whenLive(page);
    await page.locator('table.agents-table tbody tr').nth(3).waitFor();
    expect(await page.locator('header nav a[aria-current="page"]').innerText()).toBe('Agents');

    // Stuck first, then stale, then idle, then working.
    const [first, second, third, fourth, fifth] = await rows(page);
    expect(first).toMatch(/^Deploy agent\s+step-ops · 2\/2 · stuck: Deploy to staging \(blocked\)\s+Stuck/);
    expect(first).toContain('Blocked #2 Deploy to staging');
    expect(first).toContain('waits on: waiting for the staging credentials');
    expect(second).toMatch(/^Gone quiet\s+whole-list/);
    expect(second).toContain('Stale');
    expect(second).toMatch(/Doing #1 Rename the columns\s+for 1 h 30 min/);
    expect(second).toMatch(/1 h 30 min ago$/);
    expect(third).toMatch(/^Thinking agent[\s\S]*Idle[\s\S]*Doing #1 Draft the changelog\s+for 15 min[\s\S]*15 min ago$/);
    expect(fourth).toMatch(/^Migration agent\s+whole-list · 0\/2 · Migrate the schema\s+Working/);
    expect(fourth).toContain('Claim #1 Write the migration in Billing schema · just now');
    expect(fourth).toContain('Doing #1 Migrate the schema just now');
    expect(fourth).toMatch(/just now$/);
    expect(fifth).toMatch(/^Just started\s+whole-list · planning\s+Working\s+no plan written yet/);
    await expect.poll(() => page.locator('[aria-label="Agents by what they need"]').innerText()).toBe('1 stuck · 1 stale · 1 idle · 2 working');

    // Finished sessions below, newest finish first, with the summary plan-and-finish gave its agent.
    const finished = await page.locator('.finished-agents li').allInnerTexts();
    expect(finished).toHaveLength(1);
    expect(finished[0]).toMatch(/^Bug fixer\s+plan-and-finish · finished just now\s+2 tasks: 1 done, 1 blocked\.$/);

    const found = await axeFindings(page);
    expect(found.rules).toEqual([]);
    expect(found.critical + found.serious).toBe(0);
    await page.screenshot({ path: path.join(shots, 'dashboard-agents.png'), fullPage: true });

    // An agent's calls show without a reload: the idle one moves on and is working again; the holder's step changes.
    await writeTodos(server, idle, [['Draft the changelog', 'DONE'], ['Tag the release', 'IN_PROGRESS']]);
    await writeTodos(server, holder, [['Migrate the schema', 'DONE'], ['Backfill the rows', 'IN_PROGRESS']]);
    await expect.poll(() => page.locator('[aria-label="Agents by what they need"]').innerText(), { timeout: 3000 }).toBe('1 stuck · 1 stale · 0 idle · 3 working');
    const row = (name: string) => async () => (await rows(page)).find((text) => text.startsWith(name));
    await expect.poll(row('Thinking agent'), { timeout: 3000 }).toMatch(/Doing #2 Tag the release just now/);
    await expect.poll(row('Migration agent'), { timeout: 3000 }).toMatch(/Doing #2 Backfill the rows just now/);
    expect((await rows(page)).slice(0, 2).map((text) => text.split('\n')[0])).toEqual(['Deploy agent', 'Gone quiet']);
    // The stuck step unblocked by the agent: nobody is stuck any more, live too.
    await server.ok(UPDATE_STEP, { input: { step: 2, state: 'IN_PROGRESS' } }, { session: stuck });
    await expect.poll(() => page.locator('[aria-label="Agents by what they need"]').innerText(), { timeout: 3000 }).toBe('0 stuck · 1 stale · 0 idle · 4 working');
    // On a phone, each row stacks and the page fits its width.
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(page.errors).toEqual([]);
    expect(page.cspViolations).toEqual([]);
    await page.close();
  }, 90_000);

  it('renders 200 working sessions, each a row', async () => {
    // Started 50 to a request, by aliases; a quarter of them then write a plan with a step in progress.
    const ids: string[] = [];
    for (let batch = 0; batch < 4; batch += 1) {
      const fields = Array.from({ length: 50 }, (_, i) => `s${i}: startSession(input: { name: "Load agent ${batch * 50 + i}" }) { id }`);
      const data = await server.ok(`mutation { ${fields.join(' ')} }`);
      ids.push(...Object.values(data).map((session: any) => session.id));
    }
    for (const id of ids.slice(0, 50)) await writeTodos(server, id, [['Work the queue', 'IN_PROGRESS']]);

    const page = await openPage(browser, `${base()}/#/agents`, { width: 1280, height: 800 });
    const started = Date.now();
    await page.locator('table.agents-table tbody tr').nth(199).waitFor({ timeout: 10_000 });
    const firstRows = Date.now() - started;
    expect(await page.locator('table.agents-table tbody tr').count()).toBe(200);
    // The newest 200 of the working sessions (this file's earlier ones are older), and the page says so.
    await expect.poll(() => page.locator('[aria-label="Agents by what they need"]').innerText()).toMatch(/ · the newest 200 shown$/);
    expect(await page.locator('#agents-heading').innerText()).toMatch(/\(20\d working\)/);
    expect(await page.locator('table.agents-table tbody tr', { hasText: 'Doing #1 Work the queue' }).count()).toBe(50);
    const found = await axeFindings(page);
    expect(found.critical + found.serious, found.rules.join('\n')).toBe(0);
    console.log(`Agents now: 200 sessions to the last row in ${firstRows} ms`);
    expect(page.errors).toEqual([]);
    await page.close();
  }, 120_000);
});
