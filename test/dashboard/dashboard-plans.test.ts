/**
 * A session's plan in the dashboard as its tool set answers its agent
 * (issue 18 point 3, issue 19 gaps 8 and 9): an agent drives each plan set
 * with the SDK's own client over Streamable HTTP, and the page shows the very
 * text the tool answered (plan-and-finish's table, step-ops' list and counts,
 * whole-list's counts line), its controls and history rows in that set's
 * words, and a person's change read back by the agent identically.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { axeFindings, chooseState, dashboardSuite, openPage, stateButton, stateWords } from '../fixtures/browser.js';
import { textOf } from '../fixtures/mcp.js';

const { server, browser, base } = dashboardSuite({ timeout: 180_000 });

interface Agent {
  ok(name: string, args?: Record<string, unknown>): Promise<{ text: string; data: any }>;
  close(): Promise<void>;
}

/** An agent on one plan set, over Streamable HTTP at /mcp, as a client configured with `?tools=` connects; with structured output, for the session's id. */
async function agent(tools: string): Promise<Agent> {
  const client = new Client({ name: 'dashboard-plans', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`/mcp?tools=${tools}&structured=1`, base())));
  return {
    ok: async (name, args = {}) => {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      const text = textOf(result);
      if (result.isError) throw new Error(`${name} refused: ${text}`);
      return { text, data: result.structuredContent };
    },
    close: () => client.close(),
  };
}

const planOf = async (sessionId: string) =>
  (await server.ok(`query($id: ID!) { session(id: $id) { plan { id items { nodes { id text } } } } }`, { id: sessionId })).session.plan;

/** The table a plan-and-finish answer ends with (after its lead line, when it has one). */
const tableOf = (text: string) => text.split('\n\n').at(-1);

/** The agent view's text once it reads `expected` (it is read again after each change). */
async function agentText(page: Page, expected: string): Promise<string> {
  const text = page.locator('.agent-view .agent-text');
  await expect.poll(() => text.textContent(), { timeout: 15_000 }).toBe(expected);
  return (await text.textContent())!;
}

describe('a plan-and-finish session', () => {
  it('shows the table update_task answers, with glyphs, task ids and "(added mid-session)"; a person\'s change reads the same to the agent', async () => {
    const mcp = await agent('plan-and-finish');
    try {
      const planned = await mcp.ok('plan_tasks', { tasks: ['Read the code', 'Fix the parser', 'Run the tests'] });
      const sessionId = planned.data.sessionId as string;
      await mcp.ok('update_task', { task_id: 1, status: 'done' });
      await mcp.ok('add_task', { text: 'Add a regression test', after_id: 2 });
      const answered = await mcp.ok('update_task', { task_id: 2, status: 'in_progress' });
      const table = '[x] 1. Read the code\n[~] 2. Fix the parser\n[ ] 4. Add a regression test (added mid-session)\n[ ] 3. Run the tests';
      expect(tableOf(answered.text)).toBe(table);

      // The plan, as a checklist: the same table, and controls in the set's words.
      const plan = await planOf(sessionId);
      const page = await openPage(browser, `${base()}/#/task/${plan.id}`);
      await agentText(page, table);
      expect(await page.locator('.agent-view h3').textContent()).toContain('plan-and-finish');
      expect(await stateWords(page, 'Run the tests')).toEqual(['pending', 'in_progress', 'done', 'dropped', 'blocked', 'failed']);

      // A person drops a task: the rule asks the reason inline, in the set's words.
      await chooseState(page, 'Run the tests', 'DROPPED');
      const ask = page.getByLabel('This plan’s rules need a reason to set “Run the tests” dropped: why?');
      await ask.fill('no CI on this branch');
      await page.getByRole('button', { name: 'Set dropped' }).click();
      const after = '[x] 1. Read the code\n[~] 2. Fix the parser\n[ ] 4. Add a regression test (added mid-session)\n[-] 3. Run the tests - no CI on this branch';
      await agentText(page, after);
      // The agent's next answer starts with what the person did, naming the task by the id the agent's table shows,
      // and carries the table the person saw.
      const next = await mcp.ok('update_task', { task_id: 4, status: 'in_progress' });
      const [told, ...rest] = next.text.split('\n');
      expect(told).toBe('Since your last call: a person dropped step 3 "Run the tests" (no CI on this branch).');
      expect(tableOf(rest.join('\n'))).toBe(after.replace('[ ] 4.', '[~] 4.'));
      await agentText(page, after.replace('[ ] 4.', '[~] 4.'));

      // The history: a person's edit says so, and its row reads in the set's words.
      await page.locator('.history summary h3').click();
      const rows = page.locator('.history ol.events > li');
      await rows.first().waitFor();
      await expect.poll(() => rows.allTextContents(), { timeout: 10_000 }).toContainEqual(expect.stringContaining('a person (dashboard)'));

      // The session shows the table too, never whole-list's To-dos panel.
      await page.goto(`${base()}/#/sessions/${sessionId}`);
      await agentText(page, after.replace('[ ] 4.', '[~] 4.'));
      expect(await page.locator('details.todos').count()).toBe(0);
      const axe = await axeFindings(page);
      expect(axe.rules, 'axe on the session with a plan-and-finish plan').toEqual([]);
    } finally {
      await mcp.close();
    }
  }, 180_000);
});

describe('a step-ops session', () => {
  it('shows the list view answers and the counts an update answers, and a validation asked in its words', async () => {
    const mcp = await agent('step-ops');
    try {
      const set = await mcp.ok('todo', { op: 'set', tasks: ['Read the code', 'Fix the bug', 'Run the tests'] });
      const sessionId = set.data.sessionId as string;
      await mcp.ok('todo', { op: 'update', index: 1, status: 'done', validation: 'read src/parser.ts:\nthe bug is in tokenize()' });
      const updated = await mcp.ok('todo', { op: 'update', index: 3, status: 'failed', validation: 'npm test: 2 failed' });
      const view = await mcp.ok('todo', { op: 'view' });
      const list = view.text.split('\n\n').slice(1).join('\n\n');
      expect(list).toBe('1. [done] Read the code — validation: read src/parser.ts: the bug is in tokenize()\n2. [pending] Fix the bug\n3. [failed] Run the tests — validation: npm test: 2 failed');
      const counts = '3 steps: 1 pending, 0 in_progress, 1 done, 1 failed, 0 dropped.';
      expect(updated.text).toContain(counts);

      const plan = await planOf(sessionId);
      const page = await openPage(browser, `${base()}/#/task/${plan.id}`);
      await agentText(page, `${counts}\n\n${list}`);
      await chooseState(page, 'Fix the bug', 'DONE');
      await page.getByLabel('This plan’s rules need a validation to set “Fix the bug” done: what was checked?').fill('diffed the tokens: fixed');
      await page.getByRole('button', { name: 'Set done' }).click();
      const now = (await (async () => {
        await expect.poll(async () => (await mcp.ok('todo', { op: 'view' })).text, { timeout: 10_000 }).toContain('2. [done] Fix the bug — validation: diffed the tokens: fixed');
        return (await mcp.ok('todo', { op: 'view' })).text;
      })()).split('\n\n').slice(1).join('\n\n');
      await agentText(page, `3 steps: 0 pending, 0 in_progress, 2 done, 1 failed, 0 dropped.\n\n${now}`);
      const axe = await axeFindings(page);
      expect(axe.rules, 'axe on a step-ops plan').toEqual([]);
    } finally {
      await mcp.close();
    }
  }, 180_000);
});

describe('a whole-list session', () => {
  it('reads Pending / In progress / Completed in its controls and update rows, and shows the counts todo_write answers', async () => {
    const mcp = await agent('whole-list');
    try {
      const first = await mcp.ok('todo_write', { todos: [{ content: 'Read the failing test', status: 'in_progress' }, { content: 'Fix the parser', status: 'pending' }] });
      const sessionId = first.data.sessionId as string;
      const second = await mcp.ok('todo_write', { todos: [{ content: 'Read the failing test', status: 'completed' }, { content: 'Fix the parser', status: 'in_progress' }] });
      expect(second.text).toBe('Updated todo list: 0 pending, 1 in progress, 1 completed.');

      const plan = await planOf(sessionId);
      const page = await openPage(browser, `${base()}/#/task/${plan.id}`);
      await agentText(page, second.text);
      expect(await stateWords(page, 'Fix the parser')).toEqual(['Pending', 'In progress', 'Completed', 'Dropped', 'Blocked', 'Failed']);

      // The session's update rows say what changed in the chat's words.
      await page.goto(`${base()}/#/sessions/${sessionId}`);
      const newest = page.locator('.history ol.events > li').first();
      await newest.locator('summary').click();
      await newest.locator('.diff').getByText('Read the failing test: In progress → Completed').waitFor();
      expect(await page.locator('.history').textContent()).not.toMatch(/Doing|To do/);
      expect(await page.locator('details.todos summary').textContent()).toContain('In progress 1');
    } finally {
      await mcp.close();
    }
  }, 180_000);
});

describe('a session whose rules moved after it started', () => {
  it('is still shown in the words of the tool set it started with, not the set its rules now match', async () => {
    const mcp = await agent('step-ops');
    try {
      const set = await mcp.ok('todo', { op: 'set', tasks: ['Read the code', 'Fix the bug'] });
      const sessionId = set.data.sessionId as string;
      // Without a note needed for done, its rules are whole-list's field for field.
      await server.ok('mutation($rules: PlanRulesInput!) { setPlanRules(rules: $rules) { id } }', { rules: { noteRequiredFor: [] } }, { session: sessionId });
      const view = await mcp.ok('todo', { op: 'view' });

      const page = await openPage(browser, `${base()}/#/sessions/${sessionId}`);
      await agentText(page, `2 steps: 2 pending, 0 in_progress, 0 done, 0 failed, 0 dropped.\n\n${view.text.split('\n\n').slice(1).join('\n\n')}`);
      expect(await page.locator('.agent-view h3').textContent()).toContain('step-ops');
      expect(await page.locator('details.todos').count(), "never whole-list's To-dos panel").toBe(0);

      await page.getByRole('link', { name: 'Open the plan as a checklist' }).click();
      await stateButton(page, 'Fix the bug').waitFor();
      expect(await page.locator('.agent-view h3').textContent()).toContain('step-ops');
      expect(await stateWords(page, 'Fix the bug')).toEqual(['pending', 'in_progress', 'done', 'dropped', 'blocked', 'failed']);
    } finally {
      await mcp.close();
    }
  }, 180_000);
});
