#!/usr/bin/env node
// The README's pictures of a task, the sessions list and a session, taken from a running taskbase
// (npm start) on a database of its own: it writes a small story over GraphQL and MCP (a billing task
// with a stuck item and an item claimed by a named agent; sessions named by their MCP clients, by
// startSession and by their plan's first step, one finished, one with a helper), then opens the views
// in Debian's chromium and saves docs/dashboard-task.png, docs/dashboard-sessions.png (a search by
// name), docs/dashboard-session.png (a step-ops session with its claim) and
// docs/dashboard-plan-session.png (a plan-and-finish session's table).
// Usage: node scripts/dashboard-screenshots.mjs [http://127.0.0.1:4000] [docs]
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { chromium } from 'playwright-core';

const origin = process.argv[2] ?? 'http://127.0.0.1:4000';
const out = process.argv[3] ?? 'docs';
fs.mkdirSync(out, { recursive: true });

async function gql(query, variables = {}, session) {
  const headers = { 'content-type': 'application/json', ...(session ? { 'x-session-id': session } : {}) };
  const body = await (await fetch(`${origin}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query, variables }) })).json();
  if (body.errors) throw new Error(`${query.slice(0, 60)}…: ${JSON.stringify(body.errors)}`);
  return body.data;
}

/** An agent over /mcp, named by its clientInfo as a real client is; its first call starts its session. */
async function agent(tools, title) {
  const client = new Client({ name: title.toLowerCase().replace(/\W+/g, '-'), title, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`/mcp?tools=${tools}`, origin)));
  return {
    call: async (name, args) => {
      const result = await client.callTool({ name, arguments: args });
      if (result.isError) throw new Error(`${name}: ${result.content.map((part) => part.text).join('')}`);
      return result.structuredContent;
    },
    close: () => client.close(),
  };
}

const START = 'mutation($input: StartSessionInput) { startSession(input: $input) { id } }';

// The task: six items, one done, one doing, one blocked, one claimed by the refund worker.
const made = (await gql('mutation($input: CreateTaskInput!) { createTask(input: $input) { task { id } items { id } } }', { input: {
  title: 'Move billing webhooks to the event queue',
  goal: 'Every Stripe webhook is handled once, in order per customer.\nThe old charge-id lookup is gone, and replays are safe.',
  domain: 'acme/billing',
  items: ['Key charge.succeeded by event id', 'Cover refunds and disputes', 'Remove the charge-id lookup', 'Backfill last month’s events', 'Alert on queue lag over 5 minutes', 'Document the replay procedure'],
} })).createTask;
const [key, refunds, lookup, backfill] = made.items.map((item) => item.id);
const UPDATE = 'mutation($input: UpdateItemInput!) { updateItem(input: $input) { id } }';
await gql(UPDATE, { input: { id: key, state: 'DONE', comment: 'dedup table in place; 38 tests pass' } });
await gql(UPDATE, { input: { id: refunds, state: 'IN_PROGRESS', comment: 'refunds done, disputes next' } });
await gql(UPDATE, { input: { id: backfill, state: 'BLOCKED', comment: 'waiting for read access to the archive bucket' } });
await gql('mutation($input: AddCommentInput!) { addComment(input: $input) { id } }', { input: { taskId: made.task.id, body: `Disputes need their own queue, like [[#${refunds}]].\nSee the runbook.` } });

// Sessions: a step-ops agent named by its client, working the lookup's removal and holding its claim.
const worker = await agent('step-ops', 'Refund worker');
const planned = await worker.call('todo', { op: 'set', tasks: ['Find every caller of the charge-id lookup', 'Switch them to the event id', 'Delete the lookup', 'Run the billing suite'] });
const workerId = planned.sessionId;
await worker.call('todo', { op: 'update', index: 1, status: 'done', validation: 'rg chargeLookup: 4 callers, all in src/billing' });
await worker.call('todo', { op: 'update', index: 2, status: 'in_progress' });
await gql('mutation($input: ClaimItemInput!) { claimItem(input: $input) { id } }', { input: { id: lookup, ttlSeconds: 1800 } }, workerId);

// A finished nightly sweep, given its name in startSession, with a helper of its own.
const sweep = (await gql(START, { input: { name: 'Nightly refund sweep', preset: 'WHOLE_LIST' } })).startSession.id;
await gql(START, { input: { parentId: sweep, name: 'Refund sweep: EU accounts' } });
await gql('mutation($todos: [TodoInput!]!) { writeTodos(todos: $todos) { message } }', { todos: [{ content: 'List refunds older than 7 days', status: 'DONE' }, { content: 'Retry the failed ones', status: 'DONE' }] }, sweep);
await gql('mutation { finishSession { id } }', {}, sweep);

// A plan-and-finish agent, and one with no name but its plan's first step.
const checkout = await agent('plan-and-finish', 'Checkout refactor');
const checkoutId = (await checkout.call('plan_tasks', { tasks: ['Read the checkout flow', 'Split the payment step', 'Run the e2e tests'] })).sessionId;
await checkout.call('update_task', { task_id: 1, status: 'done' });
await checkout.call('add_task', { text: 'Keep the old step behind a flag', after_id: 2 });
await checkout.call('update_task', { task_id: 2, status: 'in_progress' });
await checkout.call('update_task', { task_id: 3, status: 'blocked', note: 'the e2e runner is down' });
const anonymous = (await gql(START, { input: null })).startSession.id;
await gql('mutation($steps: [String!]!) { setPlan(steps: $steps) { message } }', { steps: ['Triage the refund alerts', 'Page the on-call'] }, anonymous);

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless=new', '--no-sandbox', '--disable-gpu'] });
try {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  const shot = async (name) => {
    await page.locator('[data-live="live"]').waitFor();
    await page.screenshot({ path: path.join(out, name) });
    console.log(`wrote ${path.join(out, name)}`);
  };

  await page.goto(`${origin}/#/task/${made.task.id}`);
  await page.getByRole('button', { name: 'Edit title and domain' }).waitFor();
  await page.getByRole('link', { name: 'Refund worker', exact: true }).waitFor();
  await shot('dashboard-task.png');

  await page.goto(`${origin}/#/sessions`);
  await page.getByLabel('Find a session by id or name').fill('refund');
  await page.waitForFunction(() => document.querySelectorAll('.session-list > li').length === 2);
  await shot('dashboard-sessions.png');

  await page.goto(`${origin}/#/sessions/${workerId}`);
  await page.locator('.agent-view .agent-text').waitFor();
  await page.getByRole('region', { name: /Claims held/ }).waitFor();
  await page.getByLabel('Find a session by id or name').fill('refund');
  await page.waitForFunction(() => document.querySelectorAll('.session-list > li').length === 2);
  await shot('dashboard-session.png');

  await page.goto(`${origin}/#/sessions/${checkoutId}`);
  await page.getByLabel('Find a session by id or name').fill('');
  await page.waitForFunction(() => document.querySelectorAll('.session-list > li').length === 4);
  await page.locator('.agent-view .agent-text').waitFor();
  await shot('dashboard-plan-session.png');
} finally {
  await browser.close();
  await worker.close();
  await checkout.close();
}
