#!/usr/bin/env node
/**
 * The dashboard at the sizes of issue 43, timed in a real browser (Debian's
 * chromium through playwright-core, as test/fixtures/browser.ts drives it):
 *
 *   node bench/dashboard-at-size.mjs [--seconds 10] [--agents 10] [--rate 10] [--no-page]
 *
 * Builds what is stale (scripts/build-if-stale.mjs), starts the built server
 * (dist/src/main.js) on a fresh SQLite file (or on DATABASE_URL, a PostgreSQL
 * database nothing else uses), and seeds it over GraphQL, batched with
 * aliases: 200 working sessions, 50 of them with a plan whose second step is
 * BLOCKED and a claim on an item; 500 BLOCKED or FAILED items across 40
 * domains. Then it prints:
 *   - time to first rows, from navigation start, of Agents now (#/agents)
 *     and of the inbox (#/attention), each opened fresh, median of 3 loads;
 *   - with Agents now open and live, while `agents` of the claiming agents
 *     each change their claimed item `rate` times a second for `seconds`:
 *     the page's long tasks (PerformanceObserver 'longtask': count and the
 *     longest) and the bytes it downloaded (HTTP responses as encoded, and
 *     WebSocket frames), as the network saw them.
 * --no-page closes the page before the agents start: the rate the server keeps
 * with no dashboard open, to set beside the one it keeps with it.
 * Figures only: nothing here passes or fails (the tests assert behaviour, not speed).
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({ options: { seconds: { type: 'string', default: '10' }, agents: { type: 'string', default: '10' }, rate: { type: 'string', default: '10' }, 'no-page': { type: 'boolean', default: false } } });
const SECONDS = Number(args.seconds);
const CHANGING = Number(args.agents);
const RATE = Number(args.rate);
const SESSIONS = 200;
const WORKING = 50;
const STUCK = 500;
const DOMAINS = 40;
/** The browser the dashboard tests drive, with their flags. */
const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const freePort = () => new Promise((resolve) => {
  const probe = net.createServer().listen(0, '127.0.0.1', () => {
    const { port } = probe.address();
    probe.close(() => resolve(port));
  });
});

if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
const built = spawnSync(process.execPath, [path.join(root, 'scripts/build-if-stale.mjs')], { stdio: 'inherit' });
if (built.status !== 0) throw new Error('the build failed');

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'dashboard-at-size-'));
const databaseUrl = process.env.DATABASE_URL ?? `sqlite:${path.join(work, 'bench.sqlite')}`;
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const server = spawn(process.execPath, [path.join(root, 'dist/src/main.js')], {
  cwd: work,
  env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', NODE_ENV: 'production', TASKBASE_TOKENS: '', TASKBASE_KEEP_ALIVE_MAX_REQUESTS: String(1_000_000_000) },
  stdio: ['ignore', 'ignore', 'inherit'],
});
let browser;
try {
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (server.exitCode !== null) throw new Error('the server exited before answering');
    try { if ((await fetch(`${base}/healthz`)).ok) break; } catch { /* not yet */ }
    if (Date.now() > deadline) throw new Error(`${base} did not answer in 90 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  const gql = async (query, variables = {}, session) => {
    const answer = await (await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...(session ? { 'x-session-id': session } : {}) }, body: JSON.stringify({ query, variables }) })).json();
    if (answer.errors) throw new Error(JSON.stringify(answer.errors).slice(0, 500));
    return answer.data;
  };
  /** `count` aliased copies of a mutation field, `batch` to a request. */
  const inBatches = async (count, batch, field) => {
    const answers = [];
    for (let start = 0; start < count; start += batch) {
      const fields = Array.from({ length: Math.min(batch, count - start) }, (_, i) => `m${start + i}: ${field(start + i)}`);
      answers.push(...Object.values(await gql(`mutation { ${fields.join('\n')} }`)));
    }
    return answers;
  };

  const seeding = Date.now();
  // 40 domains of stuck work: each a task whose items are all BLOCKED or FAILED, 500 in all.
  const perDomain = (d) => Math.floor(STUCK / DOMAINS) + (d < STUCK % DOMAINS ? 1 : 0);
  const stuckTasks = await inBatches(DOMAINS, 10, (d) =>
    `createTask(input: { title: "Integration ${d}", goal: "Keep partner ${d} in sync.", domain: "fleet/partner-${String(d).padStart(2, '0')}", items: ${JSON.stringify(Array.from({ length: perDomain(d) }, (_, i) => `Sync step ${i + 1} of partner ${d}`))} }) { items { id } }`);
  const stuckItems = stuckTasks.flatMap((task) => task.items.map((item) => item.id));
  await inBatches(stuckItems.length, 50, (i) => `updateItem(input: { id: "${stuckItems[i]}", state: ${i % 3 ? 'BLOCKED' : 'FAILED'}, comment: "Partner API answers 503 since the deploy (${i})" }) { id }`);
  // The work the agents claim: one task of 50 items.
  const queue = (await gql(`mutation($input: CreateTaskInput!) { createTask(input: $input) { items { id } } }`, { input: {
    title: 'Migrate the accounts', goal: 'Every account on the new schema.', domain: 'fleet/migration', items: Array.from({ length: WORKING }, (_, i) => `Migrate account batch ${i + 1}`),
  } })).createTask.items.map((item) => item.id);
  const sessions = (await inBatches(SESSIONS, 50, (i) => `startSession(input: { name: "Agent ${String(i + 1).padStart(3, '0')}" }) { id }`)).map((session) => session.id);
  // 50 working: a plan with a step in progress and a blocked one, and a claim, in one request each (as the agent).
  await Promise.all(Array.from({ length: 5 }, async (_, lane) => {
    for (let i = lane; i < WORKING; i += 5) {
      await gql(`mutation($todos: [TodoInput!]!, $item: ClaimItemInput!) { writeTodos(todos: $todos) { message } claimItem(input: $item) { id } }`, {
        todos: [{ content: `Migrate batch ${i + 1}`, status: 'IN_PROGRESS' }, { content: 'Wait for the schema review', status: 'BLOCKED' }, { content: 'Verify the counts', status: 'PENDING' }],
        item: { id: queue[i], ttlSeconds: 3600 },
      }, sessions[i]);
    }
  }));
  const stuckTotal = (await gql('{ stuckItems(first: 1) { totalCount } }')).stuckItems.totalCount;
  console.log(`seeded in ${((Date.now() - seeding) / 1000).toFixed(1)} s: ${SESSIONS} sessions (${WORKING} with a claim and a blocked step), ${stuckItems.length} stuck items in ${DOMAINS} domains (${stuckTotal} in the inbox with the plans' blocked steps); database ${databaseUrl.startsWith('sqlite') ? 'SQLite' : 'PostgreSQL'}`);

  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  /** A fresh page at `hash` whose first `selector` row is timed from navigation start (performance.now() when it first matches). */
  const open = async (hash, selector) => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addInitScript((rowSelector) => {
      const seen = () => {
        if (globalThis.firstRowAt === undefined && document.querySelector(rowSelector)) globalThis.firstRowAt = performance.now();
      };
      new MutationObserver(seen).observe(document, { childList: true, subtree: true });
    }, selector);
    const page = await context.newPage();
    await page.goto(`${base}/${hash}`);
    await page.waitForFunction(() => globalThis.firstRowAt !== undefined, undefined, { timeout: 60_000 });
    return { page, firstRows: await page.evaluate(() => Math.round(globalThis.firstRowAt)) };
  };
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const firstRows = {};
  for (const [name, hash, selector] of [['Agents now', '#/agents', 'table.agents-table tbody tr'], ['the inbox', '#/attention', 'table.stuck-inbox tbody tr']]) {
    const times = [];
    for (let run = 0; run < 3; run += 1) {
      const { page, firstRows: ms } = await open(hash, selector);
      times.push(ms);
      await page.context().close();
    }
    firstRows[name] = times;
    console.log(`time to first rows, ${name}: ${median(times)} ms (median of ${times.join(', ')} ms from navigation start)`);
  }

  // Agents now open and live; the agents start changing things.
  const { page } = await open('#/agents', 'table.agents-table tbody tr');
  await page.locator('[data-live="live"]').waitFor({ timeout: 10_000 });
  await page.evaluate(() => {
    globalThis.longTasks = [];
    new PerformanceObserver((list) => { for (const entry of list.getEntries()) globalThis.longTasks.push(entry.duration); }).observe({ type: 'longtask' });
  });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  let bytes = 0;
  let responses = 0;
  let frames = 0;
  cdp.on('Network.loadingFinished', (event) => { bytes += event.encodedDataLength; responses += 1; });
  cdp.on('Network.webSocketFrameReceived', (event) => { bytes += Buffer.byteLength(event.response.payloadData); frames += 1; });
  // The window is SECONDS long whatever the server manages: each agent sends its next change when it is due (or at once
  // when its last answer came late) and stops at the window's end; the figures are those of the window.
  if (args['no-page']) await page.close();
  const started = Date.now();
  const ends = started + SECONDS * 1000;
  let changes = 0;
  let late = 0;
  await Promise.all(Array.from({ length: CHANGING }, async (_, agent) => {
    for (let n = 0; ; n += 1) {
      const due = started + (n * 1000) / RATE;
      if (due >= ends) return;
      const wait = due - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      else if (wait < -50) late += 1;
      if (Date.now() >= ends) return;
      await gql('mutation($input: UpdateItemInput!) { updateItem(input: $input) { id } }', { input: { id: queue[agent], state: n % 2 ? 'PENDING' : 'IN_PROGRESS', comment: `pass ${n}` } }, sessions[agent]);
      changes += 1;
    }
  }));
  const elapsed = (Date.now() - started) / 1000;
  const longTasks = args['no-page'] ? [] : await page.evaluate(() => globalThis.longTasks);
  const downloaded = bytes;
  if (!args['no-page']) await cdp.detach();
  console.log(`${CHANGING} agents × ${RATE} changes/s for ${SECONDS} s on Agents now: ${changes} changes made in ${elapsed.toFixed(1)} s (${(changes / elapsed).toFixed(0)}/s of ${CHANGING * RATE}/s asked; ${late} sent more than 50 ms late); load average ${os.loadavg().map((n) => n.toFixed(1)).join(' ')} on ${os.cpus().length} cores`);
  console.log(`  long tasks: ${longTasks.length}, longest ${Math.round(Math.max(0, ...longTasks))} ms, ${Math.round(longTasks.reduce((a, b) => a + b, 0))} ms in all`);
  console.log(`  downloaded: ${(downloaded / 1024).toFixed(0)} KiB (${downloaded} bytes) in ${responses} HTTP responses and ${frames} WebSocket frames`);
  console.log(JSON.stringify({ firstRowsMs: firstRows, changes, seconds: elapsed, loadAverage: os.loadavg()[0], longTasks: longTasks.length, longestTaskMs: Math.round(Math.max(0, ...longTasks)), bytes: downloaded, responses, frames }));
} finally {
  await browser?.close();
  server.kill('SIGTERM');
  await new Promise((resolve) => (server.exitCode !== null ? resolve() : server.once('exit', resolve)));
  fs.rmSync(work, { recursive: true, force: true });
}
