#!/usr/bin/env node
// All of the dashboard pictures of README.md and docs/dashboard.md, taken from a running taskbase (npm start) on a database of
// its own: it writes one story over GraphQL and MCP (a billing task with a stuck item and an item
// claimed by a named agent; checkout tasks in two more domains, one stuck, their items ready to
// claim; a runbook note; reminders on; sessions named by their MCP clients, by startSession and by
// their plan's first step, one finished with a helper, one whole-list, one step-ops, one
// plan-and-finish; two webhooks, one delivered and one that gave up), then opens each view in
// Debian's chromium and saves the 23 docs/dashboard-*.png the docs show, one function each below. The story also
// has a person drop a step of the refund worker's plan (shown unseen, then seen after the worker's next call), and
// this browser "last looked" midway, so Activity and Agents now mark what changed since.
// For the webhooks picture start the server with TASKBASE_WEBHOOK_ALLOWED_HOSTS=127.0.0.1
// TASKBASE_WEBHOOK_MAX_ATTEMPTS=2 TASKBASE_WEBHOOK_BACKOFF_MS=100 (the receivers are on this
// machine, and the failing one must give up while the script waits); without them that one
// picture is left as it is and the script says so.
// Usage: node scripts/dashboard-screenshots.mjs [http://127.0.0.1:4000] [docs]
import fs from 'node:fs';
import http from 'node:http';
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
  // Structured output on: the script reads the session's id from the answers' data.
  await client.connect(new StreamableHTTPClientTransport(new URL(`/mcp?tools=${tools}&structured=1`, origin)));
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
// This browser last looked here: what follows is "new since you last looked".
const lastLooked = Date.now();
await new Promise((resolve) => setTimeout(resolve, 20));

// A plan-and-finish agent, and one with no name but its plan's first step.
const checkout = await agent('plan-and-finish', 'Checkout refactor');
const checkoutId = (await checkout.call('plan_tasks', { tasks: ['Read the checkout flow', 'Split the payment step', 'Run the e2e tests'] })).sessionId;
await checkout.call('update_task', { task_id: 1, status: 'done' });
await checkout.call('add_task', { text: 'Keep the old step behind a flag', after_id: 2 });
await checkout.call('update_task', { task_id: 2, status: 'in_progress' });
await checkout.call('update_task', { task_id: 3, status: 'blocked', note: 'the e2e runner is down' });
const anonymous = (await gql(START, { input: null })).startSession.id;
await gql('mutation($steps: [String!]!) { setPlan(steps: $steps) { message } }', { steps: ['Triage the refund alerts', 'Page the on-call'] }, anonymous);

// Two more domains, so the list has an order and a subtree: a stuck ledger migration and open
// checkout work whose items are the Ready tab's queue.
const CREATE = 'mutation($input: CreateTaskInput!) { createTask(input: $input) { task { id } items { id } } }';
const ledger = (await gql(CREATE, { input: {
  title: 'Migrate the ledger', domain: 'acme/checkout',
  goal: 'Every ledger entry lives in the new tables, and the totals match the old ones to the cent.',
  items: ['Export the old ledger', 'Load it into the new tables', 'Compare the totals'],
} })).createTask;
await gql(UPDATE, { input: { id: ledger.items[0].id, state: 'DONE' } });
await gql(UPDATE, { input: { id: ledger.items[1].id, state: 'BLOCKED', comment: 'the new tables are not migrated on staging' } });
await gql(CREATE, { input: { title: 'Round prices per currency', domain: 'acme/checkout/tax', goal: 'Each currency rounds as its tax office says.', items: ['List each currency’s rule', 'Round in one place', 'Test JPY and CHF'] } });
await gql(CREATE, { input: { title: 'Coupon stacking rules', domain: 'acme/checkout', goal: 'At most one percentage coupon per order; fixed ones stack.', items: ['Write the rules down', 'Refuse a second percentage coupon'] } });
await gql(CREATE, { input: { title: 'Page on-call when the queue stalls', domain: 'acme/ops', goal: 'A stalled queue pages someone within 5 minutes.', items: ['Pick the alert threshold', 'Wire it to the pager'] } });
await gql('mutation($input: CreateNoteInput!) { createNote(input: $input) { id } }', { input: {
  title: 'Webhook replay runbook', domain: 'acme/billing',
  body: 'To replay a day of Stripe events: pause the consumer, run the replay job for the day, and watch the dedup table absorb the repeats.',
} });
await gql('mutation { updateReminderSettings(enabled: true, intervalMinutes: 30) { enabled } }');

// A whole-list agent mid-way through its second list.
const parser = (await gql(START, { input: { preset: 'WHOLE_LIST' } })).startSession.id;
const TODOS = 'mutation($todos: [TodoInput!]!) { writeTodos(todos: $todos) { message } }';
await gql(TODOS, { todos: [{ content: 'Read the failing export test', status: 'IN_PROGRESS' }, { content: 'Fix the date parser', status: 'PENDING' }, { content: 'Run the billing suite', status: 'PENDING' }] }, parser);
await gql(TODOS, { todos: [{ content: 'Read the failing export test', status: 'DONE' }, { content: 'Fix the date parser', status: 'IN_PROGRESS' }, { content: 'Run the billing suite', status: 'PENDING' }] }, parser);

const planOf = async (session) => (await gql('query($id: ID!) { session(id: $id) { plan { id } } }', { id: session })).session.plan.id;
const workerPlan = await planOf(workerId);
const checkoutPlan = await planOf(checkoutId);

// Webhooks on acme/ops: one to a receiver here that answers 204, one to a port nobody listens on;
// a note there is delivered to both, and the second gives up after its attempts.
const receiver = http.createServer((request, response) => { request.resume(); request.on('end', () => { response.statusCode = 204; response.end(); }); });
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const closed = http.createServer();
await new Promise((resolve) => closed.listen(0, '127.0.0.1', resolve));
const closedPort = closed.address().port;
await new Promise((resolve) => closed.close(resolve));
const webhooksReady = await (async () => {
  const HOOK = 'mutation($input: CreateWebhookInput!) { createWebhook(input: $input) { id } }';
  try {
    await gql(HOOK, { input: { url: `http://127.0.0.1:${closedPort}/hook`, domain: 'acme/ops', secret: 'ops-hook-secret-0001' } });
    await gql(HOOK, { input: { url: `http://127.0.0.1:${receiver.address().port}/hook`, domain: 'acme/ops', secret: 'ops-hook-secret-0002' } });
  } catch (error) { console.log(`webhooks refused (${error.message.slice(0, 200)}): dashboard-webhooks.png left as it is`); return false; }
  await gql('mutation($input: CreateNoteInput!) { createNote(input: $input) { id } }', { input: { title: 'On-call rota', domain: 'acme/ops', body: 'Weekly, handed over on Mondays.' } });
  for (let tries = 0; tries < 100; tries += 1) {
    const hooks = (await gql('{ webhooks { active deliveries { deliveredAt } } }')).webhooks;
    if (hooks.some((hook) => !hook.active) && hooks.some((hook) => hook.deliveries.some((delivery) => delivery.deliveredAt))) return true;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  console.log('the failing webhook did not give up within 20 s (TASKBASE_WEBHOOK_MAX_ATTEMPTS, _BACKOFF_MS): dashboard-webhooks.png left as it is');
  return false;
})();

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless=new', '--no-sandbox', '--disable-gpu'] });
const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
// This browser last looked midway through the story (a first visit would start it now, with nothing new).
await page.goto(`${origin}/#/agents`);
await page.evaluate((at) => localStorage.setItem('taskbase.lastLooked', String(at)), lastLooked);
await page.reload();
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

/** Saves the page as it is once the badge says live, then puts the desktop size and light mode back. */
async function shot(name, { fullPage = false } = {}) {
  await page.locator('[data-live="live"]').waitFor();
  await page.screenshot({ path: path.join(out, name), fullPage });
  console.log(`wrote ${path.join(out, name)}`);
  await page.setViewportSize(DESKTOP);
  await page.emulateMedia({ colorScheme: 'light' });
}

async function openTask(id, { as = DESKTOP, colorScheme = 'light' } = {}) {
  await page.setViewportSize(as);
  await page.emulateMedia({ colorScheme });
  await page.goto(`${origin}/#/task/${id}`);
  await page.getByRole('button', { name: 'Edit goal' }).waitFor();
  // A hash change keeps the last view's scroll: each picture starts at the page's top.
  await page.evaluate(() => window.scrollTo(0, 0));
}

async function domains() {
  await page.goto(`${origin}/#/domains/acme/checkout`);
  await page.getByRole('link', { name: 'Migrate the ledger' }).waitFor();
  await shot('dashboard-domains.png');
}

async function task() {
  await openTask(made.task.id);
  await page.getByRole('button', { name: 'Edit title and domain' }).waitFor();
  await page.getByRole('link', { name: 'Refund worker', exact: true }).waitFor();
  await shot('dashboard-task.png');
}

async function taskDark() {
  await openTask(made.task.id, { colorScheme: 'dark' });
  await shot('dashboard-task-dark.png');
}

async function taskPhone() {
  await openTask(made.task.id, { as: PHONE });
  await shot('dashboard-task-phone.png');
}

/** The page's goal edit saved after an agent changed the goal over GraphQL meanwhile. */
async function conflict() {
  await openTask(ledger.task.id);
  await page.getByRole('button', { name: 'Edit goal' }).click();
  await page.getByLabel('Goal', { exact: true }).fill('Every ledger entry lives in the new tables; the totals match to the cent, per currency.');
  await gql('mutation($input: EditTaskInput!) { editTask(input: $input) { id } }', { input: { id: ledger.task.id, goal: 'Every ledger entry lives in the new tables, and the old ones are read-only.' } });
  await page.getByRole('button', { name: 'Save goal' }).click();
  await page.getByText('was changed by someone else while you were editing').waitFor();
  await shot('dashboard-conflict.png');
}

async function search() {
  await page.goto(`${origin}/#/search?q=replay`);
  await page.getByRole('link', { name: 'Webhook replay runbook' }).waitFor();
  await shot('dashboard-search.png');
}

async function attention() {
  await page.goto(`${origin}/#/attention`);
  await page.getByRole('link', { name: 'Migrate the ledger' }).first().waitFor();
  await shot('dashboard-attention.png');
}

async function reminders() {
  await page.goto(`${origin}/#/maintenance/reminders`);
  await page.waitForFunction(() => document.querySelector('input[type="checkbox"]')?.checked === true);
  await shot('dashboard-reminders.png');
}

async function webhooks() {
  await page.goto(`${origin}/#/maintenance/webhooks`);
  await page.getByText('Nothing more is sent to this webhook.').waitFor();
  await page.getByText(/Delivered \(HTTP 204\)/).waitFor();
  await shot('dashboard-webhooks.png', { fullPage: true });
}

/** The form filled in, not sent. */
async function newTask() {
  await page.goto(`${origin}/#/new-task?domain=acme%2Fcheckout`);
  await page.getByLabel('Title').fill('Show tax on the receipt');
  await page.getByLabel(/^Goal/).fill('Every receipt shows the tax per rate, and the total matches the invoice.');
  await page.getByLabel('Items, one per line').fill('Add the tax lines to the receipt template\nRound as the invoice does\nCheck a German and a Swiss receipt');
  await shot('dashboard-new-task.png');
}

async function ready() {
  await page.goto(`${origin}/#/domains/acme/checkout?tab=ready`);
  await page.getByText('Refuse a second percentage coupon').waitFor();
  await shot('dashboard-ready.png');
}

async function sessions() {
  await page.goto(`${origin}/#/sessions`);
  await page.getByLabel('Find a session by id or name').fill('refund');
  await page.waitForFunction(() => document.querySelectorAll('.session-list > li').length === 3);
  await shot('dashboard-sessions.png');
}

async function session() {
  await page.goto(`${origin}/#/sessions/${workerId}`);
  await page.locator('.agent-view .agent-text').waitFor();
  await page.getByRole('region', { name: /Claims held/ }).waitFor();
  await page.getByLabel('Find a session by id or name').fill('refund');
  await page.waitForFunction(() => document.querySelectorAll('.session-list > li').length === 3);
  await shot('dashboard-session.png');
}

async function planSession() {
  await page.goto(`${origin}/#/sessions/${checkoutId}`);
  await page.getByLabel('Find a session by id or name').fill('');
  await page.waitForFunction(() => document.querySelectorAll('.session-list > li').length === 5);
  await page.locator('.agent-view .agent-text').waitFor();
  await shot('dashboard-plan-session.png');
}

async function planWholeList() {
  await page.goto(`${origin}/#/sessions/${parser}`);
  await page.getByRole('heading', { name: 'Read the failing export test' }).waitFor();
  await page.getByText(/^Updates/).waitFor();
  // Open the list as a reader would: it starts folded.
  await page.locator('summary', { hasText: 'To-dos' }).click();
  await page.getByText('#1 Read the failing export test').or(page.locator('li', { hasText: 'Read the failing export test' })).first().waitFor();
  await shot('dashboard-plan-whole-list.png');
}

async function planStepOps() {
  await openTask(workerPlan);
  await page.locator('.agent-view .agent-text').waitFor();
  await shot('dashboard-plan-step-ops.png');
}

/** A person dropping a step: the plan's rules ask why first. */
async function planAndFinish() {
  await openTask(checkoutPlan);
  await page.getByRole('button', { name: /^Run the e2e tests: / }).click();
  await page.locator('[role="menu"] [data-state="DROPPED"]').click();
  await page.locator('form textarea').first().waitFor();
  await page.getByRole('button', { name: /^Set dropped/ }).waitFor();
  await page.locator('form textarea').first().fill('the e2e runner is replaced next sprint');
  // Opening the menu scrolled it into view: the picture starts at the page's top.
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot('dashboard-plan-and-finish.png');
  await page.getByRole('button', { name: 'Cancel', exact: true }).click();
}

async function planShortcuts() {
  await openTask(checkoutPlan);
  // Keys typed into a field are the field's: start from the page, not the last control used.
  await page.evaluate(() => document.activeElement?.blur());
  await page.keyboard.press('j');
  await page.keyboard.press('j');
  await page.keyboard.press('?');
  await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
  await shot('dashboard-plan-shortcuts.png');
  await page.keyboard.press('Escape');
  await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor({ state: 'hidden' });
}

/** Agents now: the stuck checkout agent first, the others working, the sweep finished below, the person's drop seen. */
async function agentsNow() {
  await page.goto(`${origin}/#/agents`);
  await page.locator('table.agents-table tbody tr').nth(3).waitFor();
  await page.locator('[data-steering="seen"]').first().waitFor();
  await shot('dashboard-agents.png', { fullPage: true });
}

/** Activity since this browser last looked: the checkout agent's and the person's changes marked new. */
async function activity() {
  await page.goto(`${origin}/#/activity`);
  await page.locator('.activity-rows li .unread').first().waitFor();
  await shot('dashboard-activity.png');
}

/** The person's drop of a step of the refund worker's plan, before the worker's next call. */
async function steeringUnseen() {
  await openTask(workerPlan);
  await page.locator('[data-steering="unseen"]').first().waitFor();
  await shot('dashboard-steering-unseen.png');
}

/** The billing task's history, opened at its oldest page: each row names the item, from → to and who did it. */
async function history() {
  await openTask(made.task.id);
  await page.locator('.history summary h3').click();
  await page.locator('.history ol.events > li').first().waitFor();
  const oldest = page.getByRole('button', { name: 'Oldest ⇥' });
  if ((await oldest.count()) && (await oldest.isEnabled())) await oldest.click();
  await page.locator('.history ol.events > li summary', { hasText: /^task created/ }).waitFor();
  await page.locator('.history').evaluate((history) => history.scrollIntoView({ block: 'start' }));
  await shot('dashboard-history.png');
}

async function planPhoneDark() {
  await openTask(checkoutPlan, { as: PHONE, colorScheme: 'dark' });
  await shot('dashboard-plan-phone-dark.png');
}

try {
  // A person drops the worker's last step; the worker has not called since.
  const workerSteps = (await gql('query($id: ID!) { task(id: $id) { items { nodes { id text } } } }', { id: workerPlan })).task.items.nodes;
  await gql(UPDATE, { input: { id: workerSteps.at(-1).id, state: 'DROPPED', comment: 'CI runs the billing suite on merge' } });
  await steeringUnseen();
  await history();
  await activity();
  // The worker's next call tells it; Agents now shows it seen.
  await worker.call('todo', { op: 'view' });
  await agentsNow();
  await task();
  await taskDark();
  await taskPhone();
  await domains();
  await search();
  await attention();
  await reminders();
  if (webhooksReady) await webhooks();
  await newTask();
  await ready();
  await sessions();
  await session();
  await planSession();
  await planWholeList();
  await planStepOps();
  await planAndFinish();
  await planShortcuts();
  await planPhoneDark();
  await conflict();
} finally {
  await browser.close();
  await worker.close();
  await checkout.close();
  receiver.close();
}
