#!/usr/bin/env node
/**
 * Webhook lag under sustained writes (issue 41, "Webhooks keep up"): SERVERS
 * built server processes (dist/src/main.js) on one PostgreSQL database,
 * WEBHOOKS webhooks on the writers' domain pointed at a receiver on
 * 127.0.0.1, and `writers` loops of updateItem spread over the servers,
 * each sending as soon as the last was answered (the bench's closed loop),
 * for warm-up + `seconds`, over 8 tasks (each item written by one loop
 * only, so its writes commit in the order they are answered). The lag of a
 * change at one webhook is from the moment its write was answered (just
 * after its commit) to the receiver reading the POST that carries it: what a
 * client that wrote something waits for the webhook to hear of it. p50 and
 * p99 over every change written after the warm-up, at every webhook. Beside
 * it, the lag from the change's `at`, which is stamped when its transaction
 * began, so it also counts the write's own wait for locks: an upper bound.
 * The run then waits for the receiver to hold every change, and checks each
 * webhook got them in order, none missing.
 *
 * `npm run bench -- --db postgres` runs it after the other workloads, on a
 * database of its own. Alone:
 *   node scripts/build-if-stale.mjs
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/lag node bench/webhook-lag.mjs [seconds=10] [writers=8]
 *   (the database is emptied first)
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const SERVERS = 3;
export const WEBHOOKS = 10;
/** The target: a change reaches every webhook within this, p99 (issue 41). */
export const LAG_TARGET_MS = 2_000;
const DOMAIN = 'bench/webhook-lag';
/** After the writes stop, how long the receiver may take to hold every change before the run counts the rest as lost. */
const DRAIN_MS = 60_000;

const freePort = () => new Promise((resolve) => {
  const probe = net.createServer().listen(0, '127.0.0.1', () => {
    const { port } = probe.address();
    probe.close(() => resolve(port));
  });
});

/** One node:http receiver for every webhook (/hook/<n>): per webhook, each change's id, `at` and when its POST was read. */
async function startReceiver() {
  const got = new Map();
  const server = http.createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      const receivedAt = Date.now();
      const hook = request.url;
      const { changes } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (!got.has(hook)) got.set(hook, []);
      for (const change of changes) got.get(hook).push({ id: change.id, itemId: change.itemId, at: Date.parse(change.at), receivedAt });
      response.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    got,
    urlOf: (n) => `http://127.0.0.1:${server.address().port}/hook/${n}`,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }),
  };
}

function startServer(root, databaseUrl, port) {
  const child = spawn(process.execPath, [path.join(root, 'dist/src/main.js')], {
    cwd: fs.mkdtempSync(path.join(os.tmpdir(), 'webhook-lag-')),
    env: {
      ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', NODE_ENV: 'production',
      TASKBASE_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', TASKBASE_TOKENS: '', TASKBASE_KEEP_ALIVE_MAX_REQUESTS: String(1_000_000_000),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return { child, base: `http://127.0.0.1:${port}` };
}

async function healthy(base, child) {
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server at ${base} exited before answering`);
    try { if ((await fetch(`${base}/healthz`)).ok) return; } catch { /* not yet */ }
    if (Date.now() > deadline) throw new Error(`${base} did not answer in 90 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const percentile = (sorted, q) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : null);

/**
 * Runs the workload on `databaseUrl` (a PostgreSQL database nothing else uses) and returns its figures:
 * writes/s, changes written, lag p50/p99/max in ms, and how many changes some webhook never got or got out of order.
 */
export async function webhookLag({ root, databaseUrl, seconds = 10, warmup = 1, writers = 8, log = () => {} }) {
  const servers = [];
  for (let n = 0; n < SERVERS; n += 1) servers.push(startServer(root, databaseUrl, await freePort()));
  const receiver = await startReceiver();
  try {
    await Promise.all(servers.map(({ base, child }) => healthy(base, child)));
    const gql = async (n, query, variables) => {
      const answer = await (await fetch(`${servers[n % SERVERS].base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) })).json();
      if (answer.errors) throw new Error(JSON.stringify(answer.errors));
      return answer.data;
    };
    for (let n = 0; n < WEBHOOKS; n += 1) {
      await gql(n, 'mutation($input: CreateWebhookInput!) { createWebhook(input: $input) { id } }', { input: { url: receiver.urlOf(n), secret: 'a-shared-secret-of-32-characters', domain: DOMAIN } });
    }
    const items = [];
    for (let t = 0; t < 8; t += 1) {
      const task = await gql(t, 'mutation($input: CreateTaskInput!) { createTask(input: $input) { items { id } } }', {
        input: { title: `Webhook lag ${t + 1}`, goal: 'Sustained writes', domain: DOMAIN, items: Array.from({ length: 10 }, (_, i) => `item ${i + 1}`) },
      });
      items.push(...task.createTask.items.map((item) => item.id));
    }
    // Every change of the domain from here on is owed to every webhook (the setup's own are delivered first).
    const states = ['PENDING', 'IN_PROGRESS', 'DONE', 'BLOCKED'];
    let writes = 0;
    let failures = 0;
    /** Per item, when each of its writes was answered, in order: its changes' k-th is its k-th answer. */
    const answeredAt = new Map(items.map((id) => [id, []]));
    /** How long each measured write took: the lag is read beside it (a dispatcher's pass is a few writes' worth of statements). */
    const writeTimes = [];
    const started = Date.now();
    const measuredFrom = started + warmup * 1000;
    const until = measuredFrom + seconds * 1000;
    await Promise.all(Array.from({ length: writers }, async (_, loop) => {
      const mine = items.filter((_, i) => i % writers === loop);
      for (let n = 0; Date.now() < until && mine.length > 0; n += 1) {
        const id = mine[n % mine.length];
        const sent = Date.now();
        try {
          await gql(loop + n, 'mutation($input: UpdateItemInput!) { updateItem(input: $input) { id } }', { input: { id, state: states[Math.floor(n / mine.length + 1) % states.length] } });
          answeredAt.get(id).push(Date.now());
          if (Date.now() >= measuredFrom) {
            writes += 1;
            writeTimes.push(Date.now() - sent);
          }
        } catch {
          // A refused write leaves its item's count short of its changes': the run stops matching answers to that item.
          answeredAt.set(id, null);
          failures += 1;
        }
      }
    }));
    // What the log holds for the domain, as `changes` lists it: what every webhook is owed, in order.
    const owed = [];
    for (let after = null; ;) {
      const page = (await gql(0, 'query($after: String) { changes(after: $after, domain: "bench/webhook-lag", first: 200) { nodes { id } pageInfo { hasNextPage endCursor } } }', { after })).changes;
      owed.push(...page.nodes.map((node) => node.id));
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    const drainFrom = Date.now();
    const complete = () => [...Array(WEBHOOKS).keys()].every((n) => new Set((receiver.got.get(`/hook/${n}`) ?? []).map((c) => c.id)).size >= owed.length);
    while (!complete() && Date.now() - drainFrom < DRAIN_MS) await new Promise((resolve) => setTimeout(resolve, 100));
    const lags = [];
    const fromAt = [];
    /** The first (setup) change of each item is not a write of the run: an item's k-th change after that is its k-th answer. */
    const writeOf = new Map();
    const seenPerItem = new Map();
    for (const change of receiver.got.get('/hook/0') ?? []) {
      if (!change.itemId || writeOf.has(change.id)) continue;
      const k = seenPerItem.get(change.itemId) ?? 0;
      seenPerItem.set(change.itemId, k + 1);
      writeOf.set(change.id, { itemId: change.itemId, k });
    }
    let missing = 0;
    let outOfOrder = 0;
    for (let n = 0; n < WEBHOOKS; n += 1) {
      const seen = new Map();
      const order = [];
      for (const change of receiver.got.get(`/hook/${n}`) ?? []) {
        // At least once: a repeat (a retried POST) counts at its first receipt.
        if (seen.has(change.id)) continue;
        seen.set(change.id, change);
        order.push(change.id);
      }
      missing += owed.filter((id) => !seen.has(id)).length;
      const expected = owed.filter((id) => seen.has(id));
      outOfOrder += order.filter((id, i) => id !== expected[i]).length;
      for (const change of seen.values()) {
        if (change.at < measuredFrom || change.at >= until) continue;
        fromAt.push(change.receivedAt - change.at);
        const write = writeOf.get(change.id);
        const answered = write && answeredAt.get(write.itemId)?.[write.k];
        if (answered) lags.push(change.receivedAt - answered);
      }
    }
    lags.sort((a, b) => a - b);
    fromAt.sort((a, b) => a - b);
    writeTimes.sort((a, b) => a - b);
    const result = {
      servers: SERVERS, webhooks: WEBHOOKS, writers, seconds, writesPerSec: writes / seconds, failures, changes: owed.length,
      lagP50: percentile(lags, 0.5), lagP99: percentile(lags, 0.99), lagMax: lags.at(-1) ?? null, samples: lags.length,
      writeP50: percentile(writeTimes, 0.5), writeP99: percentile(writeTimes, 0.99), fromAtP50: percentile(fromAt, 0.5), fromAtP99: percentile(fromAt, 0.99), missing, outOfOrder,
    };
    log(`  webhook lag: ${result.writesPerSec.toFixed(0)} writes/s on ${SERVERS} servers (${failures} failed; a write took p50 ${result.writeP50} ms, p99 ${result.writeP99} ms), ${WEBHOOKS} webhooks: ` +
      `answered to received p50 ${result.lagP50} ms, p99 ${result.lagP99} ms, max ${result.lagMax} ms over ${lags.length} deliveries of a change ` +
      `(from the change's at, its write's lock waits included: p50 ${result.fromAtP50} ms, p99 ${result.fromAtP99} ms); ` +
      `${missing} missing, ${outOfOrder} out of order (of ${owed.length} changes each)`);
    return result;
  } finally {
    await Promise.all(servers.map(({ child }) => new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', resolve);
      child.kill('SIGTERM');
    })));
    await receiver.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl?.startsWith('postgres')) throw new Error('DATABASE_URL must name a PostgreSQL database (several servers share one only on PostgreSQL)');
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('DROP SCHEMA public CASCADE; CREATE SCHEMA public');
  await client.end();
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const result = await webhookLag({ root, databaseUrl, seconds: Number(process.argv[2] ?? 10), writers: Number(process.argv[3] ?? 8), log: (line) => process.stderr.write(`${line}\n`) });
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
