/**
 * The claim loop against a plain queue (issue 41, "a claim loop at the speed
 * of a queue"), in one run on the same database: WORKERS workers work down
 * the same ITEMS items with the same dependencies (chains, fan-out and
 * fan-in), first through a hand-written queue of about 40 lines of SQL (a
 * table of items with dependencies, a lease, a fenced completion: FOR UPDATE
 * SKIP LOCKED on PostgreSQL, one writer at a time on SQLite), then through
 * taskbase (claimNext → short work → updateItem DONE over GraphQL HTTP
 * against the built server, waiting for work with waitSeconds; then again
 * with DONE sent as the next claimNext's finish, one call per item). Each prints items/s; the figure that counts is
 * the ratio. Both count items handed out twice and items handed out before
 * every item they wait for was sent DONE: each must be 0.
 */
import { Agent, request } from 'node:http';

export const WORKERS = 40;
const TASKS = 50;
const ITEMS_PER_TASK = 40;
const ITEMS = TASKS * ITEMS_PER_TASK;
const DOMAIN = 'bench/claim-queue';
/** The work between the claim and DONE, the same for both. */
const WORK_MS = 1;
/** A lease longer than the run: no item comes back because a worker was slow. */
const LEASE_SECONDS = 600;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The dependencies of one task's items, as [item, [items it waits for]] by
 * index in the task, in blocks of ten: the block's head waits for every item
 * of the block before (fan-in), the next six wait for the head (fan-out),
 * and the last three each wait for the one before (a chain).
 */
function waitsOf() {
  const waits = [];
  for (let k = 0; k < ITEMS_PER_TASK; k += 1) {
    const head = k - (k % 10);
    const place = k % 10;
    if (place === 0) waits.push(head === 0 ? [] : Array.from({ length: 9 }, (_, i) => head - 9 + i));
    else if (place <= 6) waits.push([head]);
    else waits.push([k - 1]);
  }
  return waits;
}
const WAITS = waitsOf();

/** Counts what a run handed out: twice, and before what it waits for was sent DONE. */
function checker() {
  const handed = new Set();
  const doneSent = new Set();
  let twice = 0;
  let early = 0;
  return {
    /** `key(task, index)`; `deps` the keys it waits for. */
    handedOut(key, deps) {
      if (handed.has(key)) twice += 1;
      handed.add(key);
      if (deps.some((dep) => !doneSent.has(dep))) early += 1;
    },
    sendingDone(key) { doneSent.add(key); },
    result: () => ({ handedOut: handed.size, twice, early }),
  };
}

/**
 * Runs WORKERS copies of `work(worker)`, timed from the start to the last
 * item's completion (`finishedAt()`, when the work says it): a worker still
 * waiting for work when the last item is done is not counted.
 */
async function timed(work, finishedAt = () => null) {
  const started = performance.now();
  await Promise.all(Array.from({ length: WORKERS }, (_, worker) => work(worker)));
  return ((finishedAt() ?? performance.now()) - started) / 1000;
}

// ---- (a) The hand-written queue. ----

const QUEUE_SCHEMA = [
  `DROP TABLE IF EXISTS q_deps`, `DROP TABLE IF EXISTS q_items`,
  `CREATE TABLE q_items (id INTEGER PRIMARY KEY, waiting INTEGER NOT NULL, state TEXT NOT NULL, holder INTEGER, token INTEGER NOT NULL DEFAULT 0, lease_until DOUBLE PRECISION)`,
  `CREATE TABLE q_deps (depends_on INTEGER NOT NULL, item INTEGER NOT NULL, PRIMARY KEY (depends_on, item))`,
  `CREATE INDEX q_ready ON q_items (id) WHERE state = 'ready'`,
];
/** The time as seconds, in each database's SQL. */
const NOW = { postgres: `extract(epoch FROM clock_timestamp())`, sqlite: `(julianday('now') - 2440587.5) * 86400.0` };
/** Takes the first ready item whose lease is free, for `holder`: its id and fencing token. */
const CLAIM = (kind) => `UPDATE q_items SET holder = $1, token = token + 1, lease_until = ${NOW[kind]} + ${LEASE_SECONDS}
  WHERE id = (SELECT id FROM q_items WHERE state = 'ready' AND (lease_until IS NULL OR lease_until < ${NOW[kind]})
    ORDER BY id LIMIT 1${kind === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : ''})
  RETURNING id, token`;
/** Completes an item if `holder` still holds it with `token` (fenced), and frees what waited for it. */
const COMPLETE = `UPDATE q_items SET state = 'done' WHERE id = $1 AND holder = $2 AND token = $3 AND state = 'ready' RETURNING id`;
const RELEASE_WAITERS = `UPDATE q_items SET waiting = waiting - 1, state = CASE WHEN waiting = 1 THEN 'ready' ELSE state END
  WHERE id IN (SELECT item FROM q_deps WHERE depends_on = $1)`;

/** The queue's rows: item ids task * ITEMS_PER_TASK + index + 1. */
function queueRows() {
  const items = [];
  const deps = [];
  for (let t = 0; t < TASKS; t += 1) {
    for (let k = 0; k < ITEMS_PER_TASK; k += 1) {
      const id = t * ITEMS_PER_TASK + k + 1;
      items.push([id, WAITS[k].length, WAITS[k].length === 0 ? 'ready' : 'waiting']);
      for (const dep of WAITS[k]) deps.push([t * ITEMS_PER_TASK + dep + 1, id]);
    }
  }
  return { items, deps };
}
const queueDeps = (id) => WAITS[(id - 1) % ITEMS_PER_TASK].map((dep) => id - 1 - ((id - 1) % ITEMS_PER_TASK) + dep + 1);

/** The queue on PostgreSQL: WORKERS connections of their own, each statement its own transaction. */
async function queueOnPostgres(databaseUrl) {
  const { default: pg } = await import('pg');
  const setup = new pg.Client({ connectionString: databaseUrl });
  await setup.connect();
  for (const sql of QUEUE_SCHEMA) await setup.query(sql);
  const { items, deps } = queueRows();
  await setup.query(`INSERT INTO q_items (id, waiting, state) SELECT * FROM unnest($1::int[], $2::int[], $3::text[])`,
    [items.map((r) => r[0]), items.map((r) => r[1]), items.map((r) => r[2])]);
  await setup.query(`INSERT INTO q_deps (depends_on, item) SELECT * FROM unnest($1::int[], $2::int[])`, [deps.map((r) => r[0]), deps.map((r) => r[1])]);
  await setup.query('ANALYZE q_items; ANALYZE q_deps');
  const clients = await Promise.all(Array.from({ length: WORKERS }, async () => {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    return client;
  }));
  const check = checker();
  let completed = 0;
  try {
    const seconds = await timed(async (worker) => {
      const db = clients[worker];
      while (completed < ITEMS) {
        const { rows: [taken] } = await db.query(CLAIM('postgres'), [worker]);
        if (!taken) { await sleep(2); continue; }
        check.handedOut(taken.id, queueDeps(taken.id));
        await sleep(WORK_MS);
        check.sendingDone(taken.id);
        await db.query('BEGIN');
        const { rowCount } = await db.query(COMPLETE, [taken.id, worker, taken.token]);
        if (rowCount === 1) await db.query(RELEASE_WAITERS, [taken.id]);
        await db.query('COMMIT');
        if (rowCount === 1) completed += 1;
      }
    });
    return { seconds, completed, ...check.result() };
  } finally {
    await Promise.all(clients.map((client) => client.end()));
    for (const sql of QUEUE_SCHEMA.slice(0, 2)) await setup.query(sql);
    await setup.end();
  }
}

/** The queue on SQLite: one connection (SQLite has one writer), each claim and completion its own transaction. */
async function queueOnSqlite(file) {
  const { default: Sqlite } = await import('better-sqlite3');
  const db = new Sqlite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  for (const sql of QUEUE_SCHEMA) db.exec(sql);
  const { items, deps } = queueRows();
  db.transaction(() => {
    const item = db.prepare(`INSERT INTO q_items (id, waiting, state) VALUES (?, ?, ?)`);
    for (const row of items) item.run(...row);
    const dep = db.prepare(`INSERT INTO q_deps (depends_on, item) VALUES (?, ?)`);
    for (const row of deps) dep.run(...row);
  })();
  const sqlite = (sql) => db.prepare(sql.replace(/\$\d/g, '?'));
  const claim = sqlite(CLAIM('sqlite'));
  const complete = sqlite(COMPLETE);
  const release = sqlite(RELEASE_WAITERS);
  const finish = db.transaction((id, worker, token) => {
    const done = complete.all(id, worker, token).length === 1;
    if (done) release.run(id);
    return done;
  });
  const check = checker();
  let completed = 0;
  try {
    const seconds = await timed(async (worker) => {
      while (completed < ITEMS) {
        const taken = claim.get(worker);
        if (!taken) { await sleep(2); continue; }
        check.handedOut(taken.id, queueDeps(taken.id));
        await sleep(WORK_MS);
        check.sendingDone(taken.id);
        if (finish(taken.id, worker, taken.token)) completed += 1;
      }
    });
    return { seconds, completed, ...check.result() };
  } finally {
    for (const sql of QUEUE_SCHEMA.slice(0, 2)) db.exec(sql);
    db.close();
  }
}

// ---- (b) taskbase's claim loop. ----

/**
 * How long a claimNext holds when nothing is ready (waitSeconds): the worker waits for work instead of polling, as an
 * agent does; a wait still open when the last item is done ends the worker after the run is timed.
 */
const WAIT_SECONDS = 2;
const CLAIM_NEXT = `mutation($domain: String!) { claimNext(domain: $domain, ttlSeconds: ${LEASE_SECONDS}, waitSeconds: ${WAIT_SECONDS}) { id } }`;
/** DONE for the item held and the next claim, in one call and one transaction. */
const FINISH_AND_CLAIM_NEXT = `mutation($domain: String!, $done: ID!) { claimNext(domain: $domain, ttlSeconds: ${LEASE_SECONDS}, waitSeconds: ${WAIT_SECONDS}, finish: { id: $done }) { id } }`;
const DONE = `mutation($input: UpdateItemInput!) { updateItem(input: $input) { id state } }`;

/** The same tasks and dependencies as taskbase tasks (briefs), and WORKERS sessions: what the loop needs. */
async function prepareTaskbase(call, domain) {
  const depsOf = new Map();
  for (let t = 0; t < TASKS; t += 1) {
    const items = Array.from({ length: ITEMS_PER_TASK }, (_, k) => `Queue ${t} item ${k}`);
    const created = await call(`mutation($input: CreateTaskInput!) { createTask(input: $input) { task { id } items { id } } }`, {
      input: { title: `Queue ${t}`, goal: 'Workers take it down in dependency order.', items, domain },
    });
    const ids = created.createTask.items.map((item) => item.id);
    // One brief per set of items waiting for the same items.
    const bySet = new Map();
    WAITS.forEach((waits, k) => {
      depsOf.set(ids[k], waits.map((dep) => ids[dep]));
      if (waits.length === 0) return;
      const key = waits.join(',');
      if (!bySet.has(key)) bySet.set(key, { waits, items: [] });
      bySet.get(key).items.push(ids[k]);
    });
    for (const { waits, items: briefed } of bySet.values()) {
      await call(`mutation($input: AddTaskNoteInput!) { addTaskNote(input: $input) { id } }`, {
        input: {
          taskId: created.createTask.task.id, title: `Order ${waits.join(' ')}`, items: briefed,
          brief: { goal: 'In order.', context: 'Bench.', steps: 'Do it.', pitfalls: 'None.', doneWhen: 'Done.', dependsOn: waits.map((dep) => ({ item: ids[dep] })) },
        },
      });
    }
  }
  const sessions = [];
  for (let w = 0; w < WORKERS; w += 1) sessions.push((await call(`mutation { startSession { id } }`, {})).startSession.id);
  return { sessions, depsOf, domain };
}

/** One GraphQL request as `session` on a kept-alive connection: the answer's data (throws on errors). */
function post(url, agent, session, query, variables) {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ query, variables });
    const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-session-id': session } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => { text += chunk; });
      res.on('end', () => {
        try {
          const answer = JSON.parse(text);
          if (res.statusCode !== 200 || answer.errors?.length) return reject(new Error(`${res.statusCode}: ${text.slice(0, 300)}`));
          resolve(answer.data);
        } catch (error) {
          reject(error);
        }
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * The claim loop: each worker claims (claimNext), works, and sends DONE. Plain: DONE is its own call (updateItem);
 * with `finish`, DONE rides on the worker's next claimNext (finish), one call and one transaction per item, and a
 * plain claimNext is sent only after an answer that had nothing to claim. Each claimNext waits for work when nothing
 * is ready (waitSeconds), as an agent does, where the queue's workers poll every 2 ms.
 */
async function claimLoop(serverUrl, { sessions, depsOf, domain }, { finish }) {
  const url = new URL(serverUrl);
  const check = checker();
  let completed = 0;
  let lastDone = null;
  const complete = () => {
    completed += 1;
    if (completed === ITEMS) lastDone = performance.now();
  };
  let empty = 0;
  const claimMs = [];
  const doneMs = [];
  const seconds = await timed(async (worker) => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    let held = null;
    try {
      while (completed < ITEMS) {
        const sent = performance.now();
        if (held && finish) {
          check.sendingDone(held);
          const { claimNext } = await post(url, agent, sessions[worker], FINISH_AND_CLAIM_NEXT, { domain, done: held });
          claimMs.push(performance.now() - sent);
          complete();
          held = claimNext?.id ?? null;
        } else {
          const { claimNext } = await post(url, agent, sessions[worker], CLAIM_NEXT, { domain });
          claimMs.push(performance.now() - sent);
          held = claimNext?.id ?? null;
        }
        if (!held) { empty += 1; continue; }
        check.handedOut(held, depsOf.get(held));
        await sleep(WORK_MS);
        if (finish) continue;
        check.sendingDone(held);
        const doneSent = performance.now();
        await post(url, agent, sessions[worker], DONE, { input: { id: held, state: 'DONE' } });
        doneMs.push(performance.now() - doneSent);
        held = null;
        complete();
      }
      if (held && finish) {
        // Cannot be: an item held is not counted yet, so its worker's loop runs on until it is sent DONE.
        throw new Error(`worker ${worker} still holds ${held} at the end`);
      }
    } finally {
      agent.destroy();
    }
  }, () => lastDone);
  const p50 = (list) => Math.round(list.sort((a, b) => a - b)[Math.floor(list.length / 2)] ?? 0);
  return { seconds, completed, empty, claimP50: p50(claimMs), doneP50: p50(doneMs), ...check.result() };
}

/** The two claim loops, as each is named in the bench's output. */
export const LOOPS = [
  { name: 'claimNext → updateItem DONE', finish: false },
  { name: 'claimNext(finish) loop', finish: true },
];

/**
 * All on the same database: the queue (its tables dropped after each run)
 * just before and just after the claim loops (LOOPS, each on tasks of its
 * own), each loop held to both queue runs together. `around(run, loop)`
 * wraps each claim loop alone, after its setup (the server's statement
 * count, its CPU profile). Returns the queue, each loop with its ratio.
 */
export async function runClaimQueue({ kind, databaseUrl, serverUrl, call, log, around = (run) => run() }) {
  log(`  claim loop vs queue: ${WORKERS} workers, ${ITEMS} items (${TASKS} tasks of ${ITEMS_PER_TASK}: chains, fan-out, fan-in), ${WORK_MS} ms of work each`);
  const runQueue = async (when) => {
    const run = kind === 'postgres' ? await queueOnPostgres(databaseUrl) : await queueOnSqlite(databaseUrl.replace(/^sqlite:/, ''));
    log(`    hand-written queue (${when}): ${(run.completed / run.seconds).toFixed(0)} items/s (${run.completed} in ${run.seconds.toFixed(1)} s), ${run.twice} handed out twice, ${run.early} before their dependencies`);
    return run;
  };
  // The queue runs just before and just after the loops, and each loop is held to both together: on a shared machine
  // the load drifts over the minutes a run takes, and one queue run beside it moved the ratio 2 × between runs.
  const prepared = [];
  for (const [index] of LOOPS.entries()) prepared.push(await prepareTaskbase(call, `${DOMAIN}/${index}`));
  // One loop of each kind first, not measured, on tasks of its own: a server that has run for a while has compiled
  // its queries and code (graphql-jit, V8), and a fresh one spent its first 2,000 items doing so (the same loop ran
  // 111 items/s cold and 145 warm, in one run); the queue is SQL sent by a client, with nothing of the kind to warm.
  for (const [index, loop] of LOOPS.entries()) await claimLoop(serverUrl, await prepareTaskbase(call, `${DOMAIN}/warm-up-${index}`), loop);
  const before = await runQueue('before');
  const runs = [];
  for (const [index, loop] of LOOPS.entries()) runs.push(await around(() => claimLoop(serverUrl, prepared[index], loop), loop));
  const after = await runQueue('after');
  const queue = {
    seconds: before.seconds + after.seconds, completed: before.completed + after.completed,
    twice: before.twice + after.twice, early: before.early + after.early, handedOut: before.handedOut + after.handedOut,
  };
  const queueRate = queue.completed / queue.seconds;
  const loops = LOOPS.map((spec, index) => {
    const loop = runs[index];
    const loopRate = loop.completed / loop.seconds;
    log(`    taskbase ${spec.name}: ${loopRate.toFixed(0)} items/s (${loop.completed} in ${loop.seconds.toFixed(1)} s), ${loop.twice} handed out twice, ${loop.early} before their dependencies, ` +
      `claimNext p50 ${loop.claimP50} ms${spec.finish ? '' : `, DONE p50 ${loop.doneP50} ms`}, ${loop.empty} empty answers: ${(loopRate / queueRate).toFixed(2)} × the queue`);
    return { ...loop, name: spec.name, itemsPerSec: loopRate, ratio: loopRate / queueRate };
  });
  log(`    the queue: ${queueRate.toFixed(0)} items/s over both its runs (target ≥ 0.5 ×)`);
  return { queue: { ...queue, itemsPerSec: queueRate }, loops };
}
