#!/usr/bin/env node
/**
 * Writes per second with 0, 10 and 50 webhooks (issue 40, finding 3): the
 * built server (dist/src/main.js) on a fresh database per run, webhooks
 * pointed at a receiver on 127.0.0.1 that answers 204, and `concurrency`
 * loops of updateItem for `seconds`. Prints one line per webhook count:
 * writes/s, the POSTs and changes the receiver got, and the outbox rows left.
 *
 *   node scripts/build-if-stale.mjs
 *   node bench/webhook-writes.mjs [seconds=15] [concurrency=8] [counts=0,10,50]
 *   DATABASE_URL=postgres://… node bench/webhook-writes.mjs   (each run empties the database first)
 *   BENCH_ROOT=/path/to/other/checkout node bench/webhook-writes.mjs   (its dist/, built)
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// BENCH_ROOT: another checkout's build to measure (e.g. main's, for a before and after on the same machine).
const root = process.env.BENCH_ROOT ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const seconds = Number(process.argv[2] ?? 15);
const concurrency = Number(process.argv[3] ?? 8);
const counts = (process.argv[4] ?? '0,10,50').split(',').map(Number);
const postgres = process.env.DATABASE_URL?.startsWith('postgres') ? process.env.DATABASE_URL : null;

const freePort = () => new Promise((resolve) => {
  const probe = net.createServer().listen(0, '127.0.0.1', () => {
    const { port } = probe.address();
    probe.close(() => resolve(port));
  });
});

async function receiver() {
  const got = { posts: 0, changes: 0 };
  const server = http.createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      got.posts += 1;
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      got.changes += Array.isArray(body.changes) ? body.changes.length : 1;
      response.writeHead(204).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { got, url: `http://127.0.0.1:${server.address().port}/hook`, close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }) };
}

async function emptyPostgres(url) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('DROP SCHEMA public CASCADE; CREATE SCHEMA public');
  await client.end();
}

async function run(webhooks) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'webhook-writes-'));
  if (postgres) await emptyPostgres(postgres);
  const databaseUrl = postgres ?? `sqlite:${path.join(dir, 'bench.sqlite')}`;
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [path.join(root, 'dist/src/main.js')], {
    cwd: dir,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', NODE_ENV: 'production', TASKBASE_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', TASKBASE_TOKENS: '' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  for (;;) {
    try { if ((await fetch(`${base}/healthz`)).ok) break; } catch { /* not yet */ }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const gql = async (query, variables) => {
    const answer = await (await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) })).json();
    if (answer.errors) throw new Error(JSON.stringify(answer.errors));
    return answer.data;
  };
  const target = await receiver();
  for (let i = 0; i < webhooks; i += 1) {
    await gql('mutation($input: CreateWebhookInput!) { createWebhook(input: $input) { id } }', { input: { url: target.url, secret: 'a-shared-secret-of-32-characters', domain: null } });
  }
  const task = await gql('mutation($input: CreateTaskInput!) { createTask(input: $input) { items { id } } }', {
    input: { title: 'bench', goal: 'writes', domain: 'bench/webhooks', items: Array.from({ length: 50 }, (_, i) => `item ${i}`) },
  });
  const items = task.createTask.items.map((item) => item.id);
  const states = ['PENDING', 'IN_PROGRESS', 'DONE', 'BLOCKED'];
  let writes = 0;
  let failures = 0;
  const until = Date.now() + seconds * 1000;
  await Promise.all(Array.from({ length: concurrency }, async (_, loop) => {
    for (let n = loop; Date.now() < until; n += concurrency) {
      try {
        await gql('mutation($input: UpdateItemInput!) { updateItem(input: $input) { id } }', { input: { id: items[n % items.length], state: states[n % states.length] } });
        writes += 1;
      } catch {
        failures += 1;
      }
    }
  }));
  const sentAtEnd = { ...target.got };
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const rows = await gql('{ webhooks { id active } }');
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  let outboxRows = null;
  if (!postgres) {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(path.join(dir, 'bench.sqlite'), { readonly: true });
    outboxRows = db.prepare('SELECT COUNT(*) AS n FROM webhook_deliveries').get().n;
    db.close();
  }
  await target.close();
  fs.rmSync(dir, { recursive: true, force: true });
  console.log(`${process.env.BENCH_ROOT ? `${path.basename(root)}: ` : ''}${postgres ? 'PostgreSQL' : 'SQLite'}, ${webhooks} webhooks (${rows.webhooks.filter((w) => w.active).length} active): ` +
    `${(writes / seconds).toFixed(0)} writes/s (${writes} in ${seconds} s, ${failures} failed); receiver got ${sentAtEnd.posts} POSTs with ${sentAtEnd.changes} changes by the end, ` +
    `${target.got.changes} 2 s later (of ${writes * webhooks} owed)${outboxRows === null ? '' : `; ${outboxRows} delivery rows (outbox)`}`);
}

for (const count of counts) await run(count);
