/**
 * The "servers" workload (--db postgres only): does adding server processes
 * on one PostgreSQL cluster add throughput? A mixed agent workload of
 * CLIENTS clients, each with a session of its own on one kept-alive
 * connection, sending one request after another (closed loop): 70 % reads
 * (the dashboard read, mustRead, a memories page, search, domains(), as the
 * other workloads send them), 30 % writes and claims (half updateItem of a
 * random item; half the claim loop: claimNext in a domain of its own, then
 * DONE of the item it handed out, as its holder). It runs against 1, then 2,
 * then 3 server processes (clients spread evenly over them), each set started
 * fresh on the same database, and reports per set: operations a second, p50
 * and p99, and CPU per operation, of the servers (their utime + stime from
 * /proc/<pid>/stat) and of PostgreSQL (every process of the cluster, the
 * postmaster's children found through a backend's parent, plus what exited
 * children left in the postmaster's cutime + cstime).
 */
import fs from 'node:fs';
import path from 'node:path';
import { Agent, request } from 'node:http';
import pg from 'pg';
import { formatSummary, summarize } from './profile-summary.mjs';

export const CLIENTS = 24;
export const SERVER_COUNTS = [1, 2, 3];
const CLAIM_DOMAIN = 'bench/servers';
const CLAIM_TASKS = 40;
const ITEMS_PER_TASK = 100;
/** Linux's clock ticks per second (CLK_TCK), which /proc's times are counted in. */
const TICK_MS = 10;

const CLAIM_NEXT = `mutation($domain: String!) { claimNext(domain: $domain, ttlSeconds: 900) { id } }`;
const DONE = `mutation($input: UpdateItemInput!) { updateItem(input: $input) { id state } }`;

/** Fills the claim loop's domain with ready items and starts one session per client. */
export async function prepareServers(call) {
  for (let t = 0; t < CLAIM_TASKS; t += 1) {
    const items = Array.from({ length: ITEMS_PER_TASK }, (_, i) => `Servers ${t} item ${i + 1}`);
    await call(`mutation($input: CreateTaskInput!) { createTask(input: $input) { task { id } } }`, {
      input: { title: `Servers backlog ${t}`, goal: 'Agents on several servers work it down.', items, domain: CLAIM_DOMAIN },
    });
  }
  const sessions = [];
  for (let c = 0; c < CLIENTS; c += 1) sessions.push((await call(`mutation { startSession { id } }`, {})).startSession.id);
  return sessions;
}

/** utime + stime of one process, ms (and, with `children`, what its exited children left). */
function cpuMsOf(pid, children = false) {
  try {
    // Fields after the command (which is in parentheses and may hold spaces): state is field 3, utime 14, stime 15, cutime 16, cstime 17.
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const at = (field) => Number(fields[field - 3]);
    return (at(14) + at(15) + (children ? at(16) + at(17) : 0)) * TICK_MS;
  } catch {
    return 0; // gone
  }
}

function parentOf(pid) {
  const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[1]);
}

/** The cluster's postmaster: the parent of this connection's backend. Null when it is not on this machine. */
async function postmasterOf(databaseUrl) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT pg_backend_pid() AS pid');
    return parentOf(Number(rows[0].pid));
  } catch {
    return null;
  } finally {
    await client.end();
  }
}

/** Every process of the cluster, ms: the postmaster and its children now, and what its exited children left. */
function clusterCpuMs(postmaster) {
  if (postmaster === null) return null;
  let total = cpuMsOf(postmaster, true);
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (parentOf(Number(entry)) === postmaster) total += cpuMsOf(Number(entry));
    } catch { /* gone */ }
  }
  return total;
}

/** One POST on a kept-alive connection: whether it succeeded, its data, and how long it took. */
function post(url, agent, session, query, variables) {
  return new Promise((resolve) => {
    const body = JSON.stringify({ query, variables });
    const sent = performance.now();
    const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...(session ? { 'x-session-id': session } : {}) };
    const req = request(url, { method: 'POST', agent, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => { text += chunk; });
      res.on('end', () => {
        const took = performance.now() - sent;
        try {
          const answer = JSON.parse(text);
          resolve({ took, ok: res.statusCode === 200 && !answer.errors?.length, data: answer.data, error: answer.errors?.[0]?.extensions?.code ?? res.statusCode });
        } catch {
          resolve({ took, ok: false, data: null, error: res.statusCode });
        }
      });
    });
    req.on('error', (error) => resolve({ took: performance.now() - sent, ok: false, data: null, error: error.code ?? 'network' }));
    req.end(body);
  });
}

/**
 * Runs the mix against each set of servers. `start(script, args, env)` is the bench's process starter (with its
 * probe channel, for --profile); `reads` and `update` are workloads of bench/workloads.mjs (their `next()` gives a body).
 */
export async function runServers({ root, databaseUrl, sessions, reads, update, start, waitFor, freePort, warmupPerServer, duration, profile, profilesDir, scale, log }) {
  const postmaster = await postmasterOf(databaseUrl);
  if (postmaster === null) log('  servers: the PostgreSQL cluster is not on this machine; its CPU is not measured');
  const results = [];
  for (const count of SERVER_COUNTS) {
    const servers = [];
    for (let s = 0; s < count; s += 1) {
      const port = await freePort();
      const proc = start(path.join(root, 'dist/src/main.js'), [], {
        PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', NODE_ENV: 'production', TASKBASE_BENCH_PROBE: '1', TASKBASE_TOKENS: '',
        TASKBASE_KEEP_ALIVE_MAX_REQUESTS: String(1_000_000_000),
      });
      servers.push({ proc, url: new URL(`http://127.0.0.1:${port}/graphql`) });
    }
    try {
      for (const { proc, url } of servers) await waitFor(`${url.origin}/healthz`, proc);
      const stats = await drive(servers, { sessions, reads, update, warmup: warmupPerServer * count, duration, postmaster, profile, profilesDir, scale, count, log });
      const peak = Math.max(...(await Promise.all(servers.map(({ proc }) => proc.probe()))).map((p) => p.maxRssKb));
      results.push({ ...stats, peakRssMb: Math.round(peak / 1024) });
    } finally {
      for (const { proc } of servers) await proc.stop();
    }
  }
  const one = results[0];
  const three = results.at(-1);
  log(`  servers: ${SERVER_COUNTS.at(-1)} servers ${three.reqPerSec >= one.reqPerSec ? 'not slower than' : 'SLOWER than'} 1 ` +
    `(${three.reqPerSec.toFixed(0)} vs ${one.reqPerSec.toFixed(0)} ops/s); server CPU per operation ${one.serverCpuMsPerOp.toFixed(2)} → ${three.serverCpuMsPerOp.toFixed(2)} ms`);
  return results;
}

/** One set of servers under the mix for warm-up + duration seconds; what was sent after the warm-up is measured. */
async function drive(servers, { sessions, reads, update, warmup, duration, postmaster, profile, profilesDir, scale, count, log }) {
  const startedAt = performance.now();
  const measuredFrom = startedAt + warmup * 1000;
  const endsAt = measuredFrom + duration * 1000;
  const pids = servers.map(({ proc }) => proc.child.pid);
  let before = null;
  const measuring = new Promise((resolve) => setTimeout(resolve, warmup * 1000)).then(async () => {
    if (profile) await Promise.all(servers.map(({ proc }) => proc.profileStart()));
    before = { statements: (await Promise.all(servers.map(({ proc }) => proc.probe()))).map((p) => p.statements),  at: performance.now(), servers: pids.reduce((sum, pid) => sum + cpuMsOf(pid), 0), cluster: clusterCpuMs(postmaster) };
  });
  const measured = [];
  const kinds = { read: 0, update: 0, claim: 0, done: 0 };
  /** Each kind's latencies, to say which one the slow answers are. */
  const tookBy = { read: [], update: [], claim: [], done: [] };
  const failures = new Map();
  let handedOut = 0;
  await Promise.all(sessions.map(async (session, c) => {
    const { url } = servers[c % servers.length];
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    let holding = null;
    try {
      while (performance.now() < endsAt) {
        const roll = Math.random();
        let kind;
        let answer;
        if (roll < 0.7) {
          kind = 'read';
          const { body } = reads[Math.floor(Math.random() * reads.length)].next();
          answer = await post(url, agent, null, body.query, body.variables);
        } else if (roll < 0.85) {
          kind = 'update';
          const { body } = update.next();
          answer = await post(url, agent, null, body.query, body.variables);
        } else if (holding) {
          kind = 'done';
          answer = await post(url, agent, session, DONE, { input: { id: holding, state: 'DONE' } });
          holding = null;
        } else {
          kind = 'claim';
          answer = await post(url, agent, session, CLAIM_NEXT, { domain: CLAIM_DOMAIN });
          holding = answer.ok ? answer.data.claimNext?.id ?? null : null;
          if (holding) handedOut += 1;
        }
        if (performance.now() - answer.took < measuredFrom) continue;
        measured.push(answer.took);
        kinds[kind] += 1;
        tookBy[kind].push(answer.took);
        if (!answer.ok) failures.set(`${kind} ${answer.error}`, (failures.get(`${kind} ${answer.error}`) ?? 0) + 1);
      }
    } finally {
      agent.destroy();
    }
  }));
  await measuring;
  const after = { statements: (await Promise.all(servers.map(({ proc }) => proc.probe()))).map((p) => p.statements), at: performance.now(), servers: pids.reduce((sum, pid) => sum + cpuMsOf(pid), 0), cluster: clusterCpuMs(postmaster) };
  let profileSummary = null;
  if (profile) {
    const files = [];
    for (const [s, { proc }] of servers.entries()) {
      const file = path.join(profilesDir, `${scale}-postgres-servers-${count}-of-${count}-server-${s + 1}.cpuprofile`);
      await proc.profileStop(file);
      files.push(file);
    }
    // The first server's profile stands for the set (they run the same mix).
    profileSummary = { file: files[0], ...summarize(JSON.parse(fs.readFileSync(files[0], 'utf8')), { functions: 12 }) };
  }
  const failed = [...failures.values()].reduce((a, b) => a + b, 0);
  const ok = measured.length - failed;
  const seconds = (after.at - before.at) / 1000;
  const latencies = measured.sort((a, b) => a - b);
  const percentileOf = (sorted, q) => (sorted.length ? Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]) : null);
  const percentile = (q) => percentileOf(latencies, q);
  const byKind = Object.fromEntries(Object.entries(tookBy).map(([kind, took]) => {
    const sorted = took.sort((a, b) => a - b);
    return [kind, { p50: percentileOf(sorted, 0.5), p99: percentileOf(sorted, 0.99) }];
  }));
  const statements = after.statements.reduce((a, b) => a + b, 0) - before.statements.reduce((a, b) => a + b, 0);
  const serverCpuMsPerOp = (after.servers - before.servers) / Math.max(1, ok);
  const pgCpuMsPerOp = before.cluster === null ? null : (after.cluster - before.cluster) / Math.max(1, ok);
  const stats = {
    name: `servers: ${count} process${count > 1 ? 'es' : ''}, ${CLIENTS} clients, 70 % reads / 30 % writes and claims; CPU per op: servers ${serverCpuMsPerOp.toFixed(2)} ms` +
      `${pgCpuMsPerOp === null ? '' : `, PostgreSQL ${pgCpuMsPerOp.toFixed(2)} ms`}`,
    kind: 'server', raw: null, servers: count, clients: CLIENTS,
    reqPerSec: ok / duration, p50: percentile(0.5), p99: percentile(0.99), requests: measured.length, non2xx: failed, errors: 0,
    aloneP50: null, statementsPerRequest: statements / Math.max(1, measured.length), byKind,
    serverCpuMsPerOp, pgCpuMsPerOp, cpuMsPerOp: serverCpuMsPerOp + (pgCpuMsPerOp ?? 0), measuredSeconds: seconds,
    mix: kinds, handedOut, failures: Object.fromEntries(failures),
    ...(profileSummary ? { profile: { ...profileSummary, file: path.basename(profileSummary.file) } } : {}),
  };
  log(`  servers ×${count}: ${stats.reqPerSec.toFixed(0)} ops/s, p50 ${stats.p50} ms, p99 ${stats.p99} ms; CPU per op: servers ${serverCpuMsPerOp.toFixed(2)} ms` +
    `${pgCpuMsPerOp === null ? '' : `, PostgreSQL ${pgCpuMsPerOp.toFixed(2)} ms`}; ${stats.statementsPerRequest.toFixed(1)} statements per op` +
    `; mix ${JSON.stringify(kinds)}, p50/p99 ms by kind ${Object.entries(byKind).map(([kind, { p50, p99 }]) => `${kind} ${p50}/${p99}`).join(', ')}, ${handedOut} claims handed out` +
    `${failed ? `; failed: ${JSON.stringify(Object.fromEntries(failures))}` : ''}`);
  if (profileSummary) log(`    profile ${profileSummary.file}\n${formatSummary(profileSummary, '    ')}`);
  return stats;
}
