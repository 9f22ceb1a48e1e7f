#!/usr/bin/env node
/**
 * npm run bench -- [--scale small|large] [--db sqlite|postgres] [--duration 5] [--connections 32] [--port 0] [--only a,b] [--profile] [--record]
 *
 * Builds a database at the scale (bulk-loaded with the driver), starts the
 * built server (dist/) as its own process with a statement counter on, and
 * the raw node:http reference beside it; drives each workload with
 * autocannon; prints a table and writes the run to bench/.data/results/
 * (ignored by git). Only with --record (a whole run, no --only) does it write
 * the tracked files: bench/results/<date>-<scale>[-postgres].json and the
 * latest table in docs/benchmarks.md (--scale small: docs/benchmarks-small.md).
 *
 * --db postgres without TEST_POSTGRES_URL starts a throwaway cluster with
 * scripts/with-postgres.sh (port TEST_POSTGRES_PORT, else a free one).
 *
 * On PostgreSQL the run ends with the webhook lag under sustained writes
 * (bench/webhook-lag.mjs): 3 server processes on a database of its own, 10
 * webhooks, `--connections` writers; --only "webhook lag" runs it alone.
 *
 * --profile records a CPU profile of the server over each workload's measured
 * run (bench/profiles/, one file each) and prints and keeps what it spent its
 * time on (bench/profile-summary.mjs).
 *
 * --db postgres adds the workload "servers" (bench/servers.mjs), after the
 * bench's own server workloads (before the webhook lag): a mixed agent
 * workload against 1, 2 and 3 server processes of their own on the same
 * database (the bench's server and raw reference are stopped first), with
 * CPU per operation of the servers and of PostgreSQL. `--only servers` runs
 * it alone.
 */
import { fork, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { buildDatabase } from './load.mjs';
import { SCALES } from './scales.mjs';
import { createDashboardTask, workloads } from './workloads.mjs';
import { AGENTS, prepareClaimNext, runClaimNext } from './claim-next.mjs';
import { runClaimQueue, WORKERS } from './claim-queue.mjs';
import { prepareServers, runServers } from './servers.mjs';
import { openLoop } from './open-loop.mjs';
import { SERVERS as LAG_SERVERS, WEBHOOKS as LAG_WEBHOOKS, webhookLag } from './webhook-lag.mjs';
import { REPORT_FILES, table, writeReport } from './report.mjs';
import { formatSummary, summarize } from './profile-summary.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    scale: { type: 'string', default: 'small' },
    db: { type: 'string', default: 'sqlite' },
    duration: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '1' },
    connections: { type: 'string', default: '32' },
    port: { type: 'string', default: '0' },
    only: { type: 'string' },
    profile: { type: 'boolean', default: false },
    record: { type: 'boolean', default: false },
  },
});
if (!SCALES[args.scale]) throw new Error(`--scale is small or large; got ${args.scale}`);
if (!['sqlite', 'postgres'].includes(args.db)) throw new Error(`--db is sqlite or postgres; got ${args.db}`);

if (args.db === 'postgres' && !process.env.TEST_POSTGRES_URL) {
  // Run again inside a throwaway cluster, as the PostgreSQL tests do.
  const result = spawnSync(path.join(root, 'scripts/with-postgres.sh'), [process.execPath, ...process.argv.slice(1)], { stdio: 'inherit' });
  process.exit(result.status ?? 1);
}

const log = (line) => process.stderr.write(`${line}\n`);
/** The server against its raw handler: this many slices of each, alternating, of this many seconds, each after its own warm-up. */
const PAIRED_SLICES = 4;
const PAIRED_SECONDS = 2;
const SLICE_WARMUP = 0.5;
const started = Date.now();
const duration = Number(args.duration);
const connections = Number(args.connections);

async function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => { const { port } = probe.address(); probe.close(() => resolve(port)); });
  });
}

/** Forks a process with an IPC channel; `probe()` asks it for its statement count and peak RSS. */
function start(script, scriptArgs, env) {
  const child = fork(script, scriptArgs, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  let stderr = '';
  let stopping = false;
  child.stderr.on('data', (chunk) => { stderr += chunk; });
  // A process that dies mid-run would leave the bench waiting for its answers: say so, with what it printed, and stop.
  child.on('exit', (code, signal) => {
    if (stopping) return;
    log(`${path.relative(root, script)} exited (${signal ?? code}) in the middle of the run:\n${stderr}`);
    process.exit(1);
  });
  const waiting = new Map();
  child.on('message', (message) => { waiting.get(message?.type)?.shift()?.(message); });
  /** Sends `message` and waits for the child's answer of type `answer`. */
  const ask = (message, answer) => new Promise((resolve) => {
    if (!waiting.has(answer)) waiting.set(answer, []);
    waiting.get(answer).push(resolve);
    child.send(message);
  });
  return {
    child,
    stderr: () => stderr,
    probe: () => ask({ type: 'probe' }, 'probe'),
    profileStart: () => ask({ type: 'profile-start' }, 'profile-started'),
    recordStart: () => ask({ type: 'record-start' }, 'record-started'),
    keepReads: (on) => ask({ type: 'keep-reads', on }, 'keep-reads-set'),
    recordStop: async () => (await ask({ type: 'record-stop' }, 'record-stopped')).statements,
    setReplay: (name, statements) => ask({ type: 'replay', name, statements }, 'replay-set'),
    remindAll: async () => {
      const answer = await ask({ type: 'remind-all' }, 'all-reminded');
      if (!answer.ok) throw new Error(`could not mark the sessions reminded: ${answer.error}`);
    },
    setPayload: (name, answer) => ask({ type: 'payload', name, answer }, 'payload-set'),
    profileStop: (file) => ask({ type: 'profile-stop', file }, 'profile-stopped'),
    stop: () => new Promise((resolve) => {
      stopping = true;
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
      child.once('exit', () => { clearTimeout(kill); resolve(); });
      child.kill('SIGTERM');
    }),
  };
}

async function waitFor(url, proc) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (proc.child.exitCode !== null) throw new Error(`${url} exited before answering:\n${proc.stderr()}`);
    try { if ((await fetch(url)).ok) return; } catch { /* not yet */ }
    if (Date.now() > deadline) throw new Error(`${url} did not answer in 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

// 1. The database.
const postgresBase = process.env.TEST_POSTGRES_URL?.replace(/\/+$/, '');
log(`building the ${args.scale} database on ${args.db}`);
const built = await buildDatabase({
  kind: args.db, scaleName: args.scale, postgresBase, log,
  sqliteFile: path.join(root, 'bench/.data', `${args.scale}.sqlite`),
});
log(`  built in ${built.seconds.toFixed(1)} s`);

// 2. The server and the raw reference, each its own process.
const port = Number(args.port) || (await freePort());
const rawPort = Number(args.port) ? port + 1 : await freePort();
const server = start(path.join(root, 'dist/src/main.js'), [], {
  PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: built.databaseUrl, LOG_LEVEL: 'warn', NODE_ENV: 'production', TASKBASE_BENCH_PROBE: '1', TASKBASE_TOKENS: '',
  // autocannon keeps sending on a connection whose answer said Connection: close, and Node answers each such request
  // 503 (server.maxRequestsPerSocket): past 1,000 requests a connection (the floor at 20,000 req/s, in 2 s) the run would
  // measure 503s. A real client opens a new connection there; the bench's connections are meant to stay open.
  TASKBASE_KEEP_ALIVE_MAX_REQUESTS: String(1_000_000_000),
});
const raw = start(path.join(root, 'bench/raw-server.mjs'), [built.databaseUrl, String(rawPort)], {});
const results = [];
const profilesDir = path.join(root, 'bench/profiles');
if (args.profile) fs.mkdirSync(profilesDir, { recursive: true });
try {
  await waitFor(`http://127.0.0.1:${port}/healthz`, server);
  await waitFor(`http://127.0.0.1:${rawPort}/healthz`, raw);
  const serverUrl = `http://127.0.0.1:${port}/graphql`;
  const rawUrl = `http://127.0.0.1:${rawPort}`;

  const urlOf = (workload) => (workload.kind === 'server' ? serverUrl : `${rawUrl}${workload.path}`);
  /** One request, its body checked: a workload that answers errors is not measured. Returns the whole answer. */
  async function answerOf(workload, { record = false } = {}) {
    const { body, session } = workload.next();
    const headers = { 'content-type': 'application/json', ...(session ? { 'x-session-id': session } : {}), ...(record ? { 'x-bench-record': '1' } : {}) };
    const response = await fetch(urlOf(workload), { method: 'POST', headers, body: JSON.stringify(body) });
    const answer = await response.json();
    if (!response.ok || answer.errors?.length || answer.error) throw new Error(`${workload.name} answered ${response.status}: ${JSON.stringify(answer).slice(0, 500)}`);
    return answer;
  }
  const once = async (workload) => (await answerOf(workload)).data;
  const call = async (query, variables) => once({ name: 'setup', kind: 'server', next: () => ({ body: { query, variables } }) });
  const dashboardTaskId = await createDashboardTask(call);

  const listed = workloads(args.scale, dashboardTaskId);
  // The servers workload stops the bench's own server, so it runs last.
  const all = [
    ...listed, { name: `claimNext (${AGENTS} agents)`, kind: 'agents' },
    { name: `claim loop vs queue (${WORKERS} workers)`, kind: 'claimQueue' },
    ...(args.db === 'postgres' ? [{ name: 'servers', kind: 'servers' }] : []),
  ];
  /** The raw references measured so far, by name, for the alternating slices of the server's workload held to each. */
  const rawWorkloads = new Map();
  const only = args.only?.split(',');
  // The references (raw handlers, floor) go with any server workload chosen, not with those that bring their own
  // ("servers" has none, the claim loop its queue).
  const ownReferences = ['servers', 'claim loop vs queue'];
  const referencesWanted = !only || only.some((o) => !ownReferences.some((name) => name.startsWith(o)));
  const chosen = all.filter((w) => !only || ((w.kind === 'raw' || w.name.startsWith('floor')) && referencesWanted) || only.some((o) => w.name.startsWith(o)));
  for (const workload of chosen) {
    if (workload.kind === 'claimQueue') {
      // Its own driver (bench/claim-queue.mjs): a hand-written queue and the claim loops, one after the other.
      const counted = new Map();
      const { queue, loops } = await runClaimQueue({
        kind: args.db, databaseUrl: built.databaseUrl, serverUrl, call, log,
        // Around each claim loop alone: its statements and its profile leave out the setup of its tasks and briefs.
        around: async (run, loop) => {
          const seen = { before: await server.probe(), profile: null };
          counted.set(loop.name, seen);
          try {
            if (!args.profile) return await run();
            await server.profileStart();
            try {
              return await run();
            } finally {
              const file = path.join(profilesDir, `${args.scale}-${args.db}-claim-loop${loop.finish ? '-finish' : ''}.cpuprofile`);
              await server.profileStop(file);
              seen.profile = { file: path.relative(root, file), ...summarize(JSON.parse(fs.readFileSync(file, 'utf8')), { functions: 10 }) };
              log(`    profile (${loop.name}) ${seen.profile.file}\n${formatSummary(seen.profile, '    ')}`);
            }
          } finally {
            seen.after = await server.probe();
          }
        },
      });
      const peak = await server.probe();
      const shared = { raw: null, p99: null, non2xx: 0, errors: 0, aloneP50: null, peakRssMb: Math.round(peak.maxRssKb / 1024) };
      results.push({
        ...shared, name: `hand-written queue (${args.db === 'postgres' ? 'FOR UPDATE SKIP LOCKED, 40 connections' : 'SQLite, in the bench process, no HTTP'}): ${queue.completed} items, ${queue.twice} handed out twice, ${queue.early} before their dependencies`, kind: 'raw',
        reqPerSec: queue.itemsPerSec, p50: null, requests: queue.completed, statementsPerRequest: null,
      });
      for (const loop of loops) {
        const { before, after, profile } = counted.get(loop.name);
        results.push({
          ...shared, name: `claim loop (${loop.name}): ${loop.completed} items, ${loop.twice} handed out twice, ${loop.early} before their dependencies, ${loop.ratio.toFixed(2)} × the queue`,
          kind: 'server', reqPerSec: loop.itemsPerSec, p50: loop.claimP50, requests: loop.completed,
          statementsPerRequest: (after.statements - before.statements) / loop.completed, claimQueueRatio: loop.ratio, ...(profile ? { profile } : {}),
        });
      }
      continue;
    }
    if (workload.kind === 'servers') {
      // Its own servers on the same database: the bench's own two stop first, so they add no feed reads or CPU to the cluster.
      const sessions = await prepareServers(call);
      await server.stop();
      await raw.stop();
      const reads = ['dashboard read', 'mustRead', 'memories page 1', 'search "', 'domains()'].map((prefix) => listed.find((w) => w.name.startsWith(prefix)));
      results.push(...await runServers({
        root, databaseUrl: built.databaseUrl, sessions, reads, update: listed.find((w) => w.name === 'updateItem'), start, waitFor, freePort,
        // At least 10 s of warm-up per server and 15 s measured per set: each fresh process compiles its own queries
        // (graphql-jit, V8) on its share of the traffic, so a set of 3 gets 30 s, in which each of its processes sees as
        // many requests as the one server does in 10. With 5 s for every set, the JIT still warming up in the 3 servers
        // was most of what made them look slower than 1: 185 against 203 ops/s, where 20 s for every set gave 246 against 228.
        warmupPerServer: Math.max(10, Number(args.warmup)), duration: Math.max(15, duration), profile: args.profile, profilesDir, scale: args.scale, log,
      }));
      continue;
    }
    if (workload.kind === 'agents') {
      // Its own driver (bench/claim-next.mjs): every answer is checked for the item it hands out.
      const sessions = await prepareClaimNext(call);
      const before = await server.probe();
      const stats = await runClaimNext(serverUrl, sessions, { warmup: Math.max(0, Number(args.warmup)), duration });
      const peak = await server.probe();
      const total = stats.handedOut + stats.non2xx + AGENTS;
      results.push({
        name: `${workload.name}, ${stats.handedOut} items, ${stats.handedTwice} handed out twice`, kind: 'server', raw: null,
        ...stats, aloneP50: null, statementsPerRequest: (peak.statements - before.statements) / total, peakRssMb: Math.round(peak.maxRssKb / 1024),
      });
      log(`  ${workload.name}: ${stats.reqPerSec.toFixed(0)} req/s, p50 ${stats.p50} ms, p99 ${stats.p99} ms, ${stats.handedOut} handed out, ${stats.handedTwice} twice, ${stats.non2xx} failed`);
      continue;
    }
    if (workload.kind === 'server' && workload.read) {
      // The references this read is measured against, from one request of its own: the payload floor answers its
      // very answer, and the replay runs the very statements the server sent for it. (Writes have hand-written raw
      // handlers that commit, bench/raw-server.mjs: a replayed write would add its rows again each time.)
      if (workload.replay) await server.recordStart();
      const answer = await answerOf(workload, { record: Boolean(workload.replay) });
      const statements = workload.replay ? await server.recordStop() : null;
      await raw.setPayload(workload.name, answer);
      const payload = { name: `payload floor: ${workload.name}`, kind: 'payload', path: `/payload/${encodeURIComponent(workload.name)}`, next: workload.next, bytes: Buffer.byteLength(JSON.stringify(answer)) };
      results.push(await measure(payload));
      workload.payload = payload.name;
      if (statements) {
        await raw.setReplay(workload.name, statements);
        const replayed = { name: `raw ${workload.name} (its SQL replayed)`, kind: 'raw', path: `/replay/${encodeURIComponent(workload.name)}`, next: workload.next };
        rawWorkloads.set(replayed.name, replayed);
        results.push(await measure(replayed));
        workload.raw = replayed.name;
      }
    }
    const result = await measure(workload);
    results.push(result);
    if (workload.kind === 'raw') rawWorkloads.set(workload.name, workload);
    if (workload.raw && rawWorkloads.has(workload.raw)) {
      // The server against its raw handler in alternating slices: this machine's speed drifts by up to 2 × over
      // minutes, and runs of the two measured a few seconds apart moved a ratio by 0.1–0.2 between runs of the
      // same code. Each slice of one is followed by a slice of the other, so both see the same machine.
      result.paired = await alternate(workload, rawWorkloads.get(workload.raw));
      const { server: rate, raw: rawRate } = result.paired;
      log(`  ${workload.name} against ${workload.raw}, ${PAIRED_SLICES} alternating slices of ${PAIRED_SECONDS} s each: ${rate.toFixed(0)} vs ${rawRate.toFixed(0)} req/s, ${(rate / rawRate).toFixed(2)} ×`);
    }
    // A read the server keeps until anything commits (src/services/kernel/committed-cache.ts) is answered from what
    // it kept whenever nothing committed since: that is what the run above measured. Its cost when something has
    // (read again in full, the committed version read first) is measured too, with the server keeping nothing, and
    // at the fixed offered rate as well.
    const unkept = workload.kept ? await measureUnkept({ ...workload, name: `${workload.name}, nothing kept`, keptOf: workload.name }) : null;
    if (unkept) results.push(unkept);
    if (workload.fixedRate) {
      // Open loop: requests offered at a fixed rate, half of what the raw handler of the same SQL answers in its
      // run of `duration` (half of what the server itself answered where there is none), so the latency is the
      // request's, not the queue's. Not the slices' rate: both sides answer about a fifth more in short slices
      // than over a whole run, and half of that was above what the server answers for long.
      const reference = results.find((r) => r.name === workload.raw) ?? result;
      const rate = Math.max(1, Math.round(reference.reqPerSec / 2));
      const atRate = (read, sampled) => ({ ...read, name: `${read.name} at ${rate} req/s offered`, fixedRateOf: read.name, offered: rate, raw: null, payload: null });
      results.push(await measure(atRate(workload), { rate, sampled: result }));
      if (unkept) results.push(await measureUnkept(atRate({ ...workload, name: unkept.name, keptOf: workload.name }), { rate, sampled: unkept }));
    }
  }

  /** measure() with the server keeping no read (bench-probe's keep-reads), then keeping them again. */
  async function measureUnkept(workload, options) {
    await server.keepReads(false);
    try {
      return await measure(workload, options);
    } finally {
      await server.keepReads(true);
    }
  }

  /**
   * Statements per request: the process's counter around 20 requests in a row (answers checked), once the
   * requests the previous run left queued are done; and what one request costs with nothing queued before
   * it: the median of those 20.
   */
  async function sample(workload, proc) {
    let before = await proc.probe();
    for (let settled = 0; settled < 40; settled += 1) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      const now = await proc.probe();
      if (now.statements === before.statements) break;
      before = now;
    }
    const SAMPLE = 20;
    const alone = [];
    for (let i = 0; i < SAMPLE; i += 1) {
      const sent = performance.now();
      await once(workload);
      alone.push(performance.now() - sent);
    }
    const after = await proc.probe();
    return { aloneP50: Math.round(alone.sort((a, b) => a - b)[SAMPLE / 2]), statements: (after.statements - before.statements) / SAMPLE };
  }

  /**
   * A server workload and its raw reference, closed loop, in PAIRED_SLICES slices of PAIRED_SECONDS each, one
   * after the other and starting with each in turn; each slice after a short warm-up on its own connections.
   * The rate of each is what it answered (2xx) in its slices over their time together.
   */
  async function alternate(workload, reference) {
    const answered = { server: 0, raw: 0 };
    for (let slice = 0; slice < PAIRED_SLICES; slice += 1) {
      for (const which of slice % 2 === 0 ? ['raw', 'server'] : ['server', 'raw']) {
        answered[which] += await answeredIn(which === 'server' ? workload : reference, PAIRED_SECONDS);
      }
    }
    const seconds = PAIRED_SLICES * PAIRED_SECONDS;
    return { slices: PAIRED_SLICES, secondsEach: PAIRED_SECONDS, server: answered.server / seconds, raw: answered.raw / seconds };
  }

  /** Requests of one workload answered 2xx in `seconds`, closed loop, counting those sent after a warm-up of SLICE_WARMUP. */
  async function answeredIn(workload, seconds) {
    const instance = autocannon({ url: urlOf(workload), connections, duration: SLICE_WARMUP + seconds, requests: requestsOf(workload) });
    const from = performance.now() + SLICE_WARMUP * 1000;
    let ok = 0;
    instance.on('response', (_client, status, _bytes, took) => {
      if (status >= 200 && status < 300 && performance.now() - took >= from) ok += 1;
    });
    await instance;
    return ok;
  }

  /** What autocannon sends for a workload: a fresh body (and session) per request. */
  function requestsOf(workload) {
    return [{
      method: 'POST',
      setupRequest: (request) => {
        const { body, session } = workload.next();
        return { ...request, body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...(session ? { 'x-session-id': session } : {}) } };
      },
    }];
  }

  /**
   * One workload: its statements per request and its one-at-a-time p50 (20 requests in a row), then one autocannon
   * run, closed loop (every connection sends as soon as it is answered), or, with `rate`, one open-loop run at that
   * offered rate (bench/open-loop.mjs).
   */
  async function measure(workload, { rate, sampled } = {}) {
    const proc = workload.kind === 'server' ? server : raw;
    if (workload.noneDue) await raw.remindAll();
    const { aloneP50, statements } = sampled ? { aloneP50: sampled.aloneP50, statements: sampled.statementsPerRequest } : await sample(workload, proc);
    if (rate) {
      const stats = await openLoop({
        url: urlOf(workload), rate, warmup: Math.max(0, Number(args.warmup)), duration, connections, next: workload.next,
        ok: (status, text) => status >= 200 && status < 300 && !text.includes('"errors":[{'),
      });
      const peak = await proc.probe();
      log(`  ${workload.name}: ${stats.reqPerSec.toFixed(0)} req/s answered, p50 ${stats.p50} ms, p99 ${stats.p99} ms (open loop), ${stats.non2xx + stats.errors} failed`);
      return {
        name: workload.name, kind: workload.kind, raw: null, payload: null, fixedRateOf: workload.fixedRateOf, offered: rate,
        ...(workload.keptOf ? { keptOf: workload.keptOf } : {}),
        ...stats, aloneP50, statementsPerRequest: statements, peakRssMb: Math.round(peak.maxRssKb / 1024),
      };
    }
    // One autocannon run of warm-up + duration on the same connections; only what is sent after the warm-up
    // is measured. (Measured separately, each run's first second was a burst of new connections, which the
    // busy server accepts a few per turn of its event loop: their first requests waited seconds, and that
    // start-up, not the steady state, was the p99.)
    const warmup = Math.max(0, Number(args.warmup));
    const instance = autocannon({
      url: urlOf(workload),
      connections, duration: warmup + duration,
      requests: requestsOf(workload),
    });
    const startedAt = performance.now();
    const measuredFrom = startedAt + warmup * 1000;
    const answered = [];
    instance.on('response', (_client, status, _bytes, took) => answered.push({ sent: performance.now() - took, took, status }));
    // --profile: a CPU profile of the server over this workload's measured part (of a raw handler's only where the
    // workload asks: the write floor's).
    const profiling = args.profile && (workload.kind === 'server' || workload.profiled === true);
    const profileStarted = profiling
      ? new Promise((resolve) => setTimeout(resolve, warmup * 1000)).then(() => proc.profileStart())
      : Promise.resolve();
    const run = await instance;
    await profileStarted;
    const measured = answered.filter((r) => r.sent >= measuredFrom);
    // The requests still in flight when the run ends (at most one per connection) are not counted.
    const latencies = measured.map((r) => r.took).sort((a, b) => a - b);
    const latencyAt = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
    const percentile = (q) => (latencies.length ? Math.round(latencyAt(q)) : null);
    const failed = measured.filter((r) => r.status < 200 || r.status > 299).length;
    const stats = {
      // Only answers that succeeded count: a failure answered fast must never raise the rate.
      reqPerSec: (measured.length - failed) / duration,
      p50: percentile(0.5), p99: percentile(0.99),
      // Unrounded, for comparing two p50s of a millisecond or two (search at two sizes): rounded, 1.4 and 1.6 ms read 1 and 2.
      p50Exact: latencies.length ? Number(latencyAt(0.5).toFixed(2)) : null,
      requests: measured.length,
      non2xx: failed,
      errors: run.errors + run.timeouts,
    };
    let profile = null;
    if (profiling) {
      const file = path.join(profilesDir, `${args.scale}-${args.db}-${workload.name.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '').toLowerCase()}.cpuprofile`);
      await proc.profileStop(file);
      profile = { file: path.relative(root, file), ...summarize(JSON.parse(fs.readFileSync(file, 'utf8')), { functions: 10 }) };
    }
    const peak = await proc.probe();
    const result = {
      name: workload.name, kind: workload.kind, raw: workload.raw ?? null, payload: workload.payload ?? null,
      ...(workload.bytes ? { bytes: workload.bytes } : {}),
      ...(workload.keptOf ? { keptOf: workload.keptOf } : {}),
      ...stats, aloneP50,
      statementsPerRequest: statements, peakRssMb: Math.round(peak.maxRssKb / 1024),
      ...(profile ? { profile } : {}),
    };
    log(`  ${workload.name}: ${stats.reqPerSec.toFixed(0)} req/s, p50 ${stats.p50} ms, p99 ${stats.p99} ms, alone ${aloneP50} ms, ${statements} statements`);
    if (profile) log(`    profile ${profile.file}\n${formatSummary(profile, '    ')}`);
    return result;
  }
} finally {
  await server.stop();
  await raw.stop();
}

// Webhook lag with several servers (PostgreSQL only: a SQLite file has one server process), on a database of its own
// so its webhooks and writes touch nothing the other workloads measured.
const LAG_NAME = `webhook lag, ${LAG_SERVERS} servers, ${LAG_WEBHOOKS} webhooks`;
if (args.db === 'postgres' && (!args.only || args.only.split(',').some((o) => LAG_NAME.startsWith(o)))) {
  const { default: pg } = await import('pg');
  const admin = new pg.Client({ connectionString: `${postgresBase}/postgres` });
  await admin.connect();
  await admin.query('DROP DATABASE IF EXISTS "taskbase_bench_webhook_lag"');
  await admin.query('CREATE DATABASE "taskbase_bench_webhook_lag"');
  await admin.end();
  const lag = await webhookLag({ root, databaseUrl: `${postgresBase}/taskbase_bench_webhook_lag`, seconds: duration, warmup: Math.max(0, Number(args.warmup)), writers: connections, log });
  results.push({
    name: `${LAG_NAME}: write answered to receipt at ${lag.writesPerSec.toFixed(0)} writes/s (${lag.writers} writers), ${lag.missing} missing, ${lag.outOfOrder} out of order`,
    kind: 'lag', raw: null, payload: null, reqPerSec: lag.writesPerSec, p50: lag.lagP50, p99: lag.lagP99, requests: lag.samples,
    non2xx: lag.failures, errors: lag.missing + lag.outOfOrder, aloneP50: null, statementsPerRequest: null, peakRssMb: null, lag,
  });
}

// 3. Ratios, the table, the files.
const floor = results.find((r) => r.name.startsWith('floor'));
for (const r of results) {
  // The raw handlers' closed loops too: what the driver alone reaches against the same floor.
  const closedLoop = (r.kind === 'server' || r.kind === 'raw') && !r.fixedRateOf;
  // A reference that answered nothing within the run gives no ratio (not Infinity).
  const over = (reference) => (reference && reference.reqPerSec > 0 ? r.reqPerSec / reference.reqPerSec : null);
  r.ratioToFloor = closedLoop ? over(floor) : null;
  // Against its raw handler: from the alternating slices where there are some, else from the two runs.
  r.ratioToRaw = r.paired ? r.paired.server / r.paired.raw : over(r.raw && results.find((other) => other.name === r.raw));
  r.ratioToPayload = over(r.payload && results.find((other) => other.name === r.payload));
}
const cpus = os.cpus();
const run = {
  date: new Date().toISOString(), scale: args.scale, db: args.db, duration, connections,
  machine: { cpu: cpus[0]?.model ?? 'unknown', cores: cpus.length, memoryGb: Math.round(os.totalmem() / 2 ** 30), node: process.version, os: `${os.type()} ${os.release()}` },
  buildSeconds: built.seconds, totalSeconds: (Date.now() - started) / 1000, results,
};
const name = `${run.date.slice(0, 10)}-${args.scale}${args.db === 'postgres' ? '-postgres' : ''}.json`;
if (args.record && !args.only) {
  const resultsDir = path.join(root, 'bench/results');
  fs.mkdirSync(resultsDir, { recursive: true });
  const file = path.join(resultsDir, name);
  fs.writeFileSync(file, `${JSON.stringify(run, null, 2)}\n`);
  process.stdout.write(`${writeReport(root, run)}\n`);
  log(`--record: wrote ${path.relative(root, file)} and ${REPORT_FILES[run.scale]}; ${run.totalSeconds.toFixed(0)} s in all`);
} else {
  // A trial run leaves the tracked files as they are: its figures go where git does not look.
  const scratchDir = path.join(root, 'bench/.data/results');
  fs.mkdirSync(scratchDir, { recursive: true });
  const file = path.join(scratchDir, name);
  fs.writeFileSync(file, `${JSON.stringify(run, null, 2)}\n`);
  process.stdout.write(`${table(run, root)}\n`);
  const why = args.only ? '--only measures some workloads, so nothing is recorded' : `add --record to update bench/results/ and ${REPORT_FILES[run.scale]}`;
  log(`wrote ${path.relative(root, file)} (${why}); ${run.totalSeconds.toFixed(0)} s in all`);
}
