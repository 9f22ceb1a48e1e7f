/**
 * Builds a benchmark database with the driver directly (not through the API):
 * the schema comes from the server's own migrations, then every table is
 * bulk-loaded in big transactions. Ids are assigned here, so the workloads
 * know which items belong to which task without asking.
 */
import fs from 'node:fs';
import path from 'node:path';
import { EVEN_HITS, EVEN_WORD, SCALES, SEARCH_WORD, leafCount, leafDomain } from './scales.mjs';
// The server's own rule for a task's state from its counts (the build runs first).
const { progressOf, taskStateOf } = await import('../dist/src/domain/states.js');
// Sessions start as startSession starts them: the WHOLE_LIST preset's rules, from the server's own table.
const { DEFAULT_PLAN_RULES } = await import('../dist/src/domain/plan-rules.js');

const WORDS = ['ledger', 'webhook', 'refund', 'invoice', 'queue', 'retry', 'cache', 'schema', 'replay', 'audit', 'quota', 'token',
  'billing', 'dispute', 'export', 'import', 'search', 'index', 'backfill', 'rollout', 'canary', 'metric', 'alert', 'budget'];
const BASE = Date.parse('2026-01-01T00:00:00.000Z');
const iso = (seconds) => new Date(BASE + seconds * 1000).toISOString();
const words = (seed, count) => Array.from({ length: count }, (_, i) => WORDS[(seed * 31 + i * 7) % WORDS.length]).join(' ');

/** A task's item states: three in ten tasks are closed (all settled), the rest open with a mix. */
function itemState(task, item) {
  if (task % 10 < 3) return task % 10 === 2 && item === 0 ? 'DROPPED' : 'DONE';
  if (item % 5 === 0) return 'DONE';
  if (item % 7 === 1) return 'IN_PROGRESS';
  if (item % 11 === 3) return 'BLOCKED';
  return 'PENDING';
}

/**
 * Every row of the database, table by table, as plain arrays in the column
 * order of `COLUMNS`. A generator, so 2,000,000 items never sit in memory at once.
 */
export const COLUMNS = {
  memories: ['id', 'kind', 'title', 'domain', 'body', 'goal', 'archived', 'version', 'sessionId', 'createdAt', 'updatedAt',
    'pendingItems', 'inProgressItems', 'doneItems', 'droppedItems', 'blockedItems', 'failedItems', 'taskState'],
  items: ['id', 'taskId', 'text', 'state', 'position', 'deleted', 'added', 'note', 'createdAt', 'updatedAt'],
  comments: ['id', 'taskId', 'itemId', 'body', 'createdAt'],
  sessions: ['id', 'parentId', 'rules', 'planTaskId', 'planStanding', 'turn', 'finishedAt', 'lastRemindedAt', 'createdAt'],
  session_domains: ['sessionId', 'domain', 'createdAt'],
  memory_search: ['memoryId', 'title', 'body'],
};

/** The layout every workload relies on: ids of tasks, their items, sessions. */
export function layout(scaleName) {
  const scale = SCALES[scaleName];
  const firstNote = scale.tasks + 1;
  const firstPlan = firstNote + scale.notes;
  const firstPlanItem = scale.tasks * scale.itemsPerTask + 1;
  return {
    scale,
    taskId: (t) => t + 1,
    itemId: (t, i) => t * scale.itemsPerTask + i + 1,
    noteId: (n) => firstNote + n,
    planId: (p) => firstPlan + p,
    planItemId: (p, i) => firstPlanItem + p * scale.stepsPerPlan + i,
    sessionId: (p) => `bench-session-${p}`,
  };
}

export function* rows(scaleName, table) {
  const { scale, taskId, itemId, noteId, planId, planItemId, sessionId } = layout(scaleName);
  const leaves = leafCount(scale);
  const K = scale.itemsPerTask;
  const everyEven = scale.tasks / EVEN_HITS;
  const planted = (t, i) => `${t % 1000 === 7 && i === 3 ? ` ${SEARCH_WORD}` : ''}${t % everyEven === 11 && i === 5 ? ` ${EVEN_WORD}` : ''}`;
  const label = (t, i) => `Step ${i + 1} ${words(t + i, 3)}${planted(t, i)}`;
  const updated = (t) => (t * 7919) % scale.tasks + scale.tasks;
  // The task row's counts of live items by state, and the state the domain derives from them.
  const counted = (states) => {
    const c = progressOf(states.map((state) => ({ state, deleted: false })));
    return [c.pending, c.inProgress, c.done, c.dropped, c.blocked, c.failed, taskStateOf(c)];
  };
  if (table === 'memories') {
    for (let t = 0; t < scale.tasks; t += 1) {
      const counts = counted(Array.from({ length: K }, (_, i) => itemState(t, i)));
      yield [taskId(t), 'TASK', `Task ${t} ${words(t, 4)}`, leafDomain(scale, t % leaves), '', `Ship the ${words(t, 6)} change.`, false, 1, null, iso(t), iso(updated(t)), ...counts];
    }
    for (let n = 0; n < scale.notes; n += 1) {
      yield [noteId(n), 'NOTE', `Note ${n} ${words(n + 5, 3)}`, leafDomain(scale, n % leaves), `Remember ${words(n, 12)}.`, '', false, 1, null, iso(n), iso(n + scale.tasks), 0, 0, 0, 0, 0, 0, null];
    }
    const planCounts = counted(Array.from({ length: scale.stepsPerPlan }, () => 'PENDING'));
    for (let p = 0; p < scale.plans; p += 1) {
      yield [planId(p), 'TASK', 'Plan', null, '', '', false, 1, sessionId(p), iso(p), iso(p), ...planCounts];
    }
  } else if (table === 'items') {
    for (let t = 0; t < scale.tasks; t += 1) {
      for (let i = 0; i < K; i += 1) {
        const state = itemState(t, i);
        yield [itemId(t, i), taskId(t), label(t, i), state, i, false, false, state === 'DONE' ? 'Checked.' : null, iso(t), iso(updated(t))];
      }
    }
    for (let p = 0; p < scale.plans; p += 1) {
      for (let i = 0; i < scale.stepsPerPlan; i += 1) {
        yield [planItemId(p, i), planId(p), `Plan step ${i + 1}`, 'PENDING', i, false, false, null, iso(p), iso(p)];
      }
    }
  } else if (table === 'comments') {
    let id = 1;
    for (let t = 0; t < scale.tasks; t += 1) {
      for (let c = 0; c < scale.commentsPerTask; c += 1) {
        yield [id++, taskId(t), c % 2 ? itemId(t, c % K) : null, `Progress on [[#${itemId(t, 0)}]]: ${words(t + c, 8)}.`, iso(t + c)];
      }
    }
  } else if (table === 'sessions') {
    const rules = JSON.stringify(DEFAULT_PLAN_RULES);
    for (let p = 0; p < scale.plans; p += 1) yield [sessionId(p), null, rules, planId(p), false, 1, null, null, iso(p)];
  } else if (table === 'session_domains') {
    for (let p = 0; p < scale.plans; p += 1) {
      const a = leafDomain(scale, p % leaves);
      const b = leafDomain(scale, (p * 7 + 3) % leaves);
      yield [sessionId(p), a, iso(p)];
      if (b !== a) yield [sessionId(p), b, iso(p)];
    }
  } else if (table === 'memory_search') {
    for (let t = 0; t < scale.tasks; t += 1) {
      const text = [`Ship the ${words(t, 6)} change.`, ...Array.from({ length: K }, (_, i) => label(t, i))].join('\n');
      yield [taskId(t), `Task ${t} ${words(t, 4)}`, text];
    }
    for (let n = 0; n < scale.notes; n += 1) yield [noteId(n), `Note ${n} ${words(n + 5, 3)}`, `Remember ${words(n, 12)}.`];
  }
}

const TABLES = ['memories', 'items', 'comments', 'sessions', 'session_domains', 'memory_search'];

/** Creates the schema with the server's migrations (from dist/), then closes. */
async function migrate(databaseUrl) {
  const { Database } = await import('../dist/src/db/database.js');
  const db = await Database.open(databaseUrl);
  await db.close();
}

async function loadSqlite(file, scaleName, log) {
  const { default: Sqlite } = await import('better-sqlite3');
  const db = new Sqlite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  const toSql = (value) => (typeof value === 'boolean' ? (value ? 1 : 0) : value);
  for (const table of TABLES) {
    const started = Date.now();
    const columns = table === 'memory_search' ? ['rowid', 'title', 'body'] : COLUMNS[table];
    const insert = db.prepare(`INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
    let count = 0;
    const batch = db.transaction((list) => { for (const row of list) insert.run(...row.map(toSql)); });
    let pending = [];
    for (const row of rows(scaleName, table)) {
      pending.push(row);
      count += 1;
      if (pending.length === 50_000) { batch(pending); pending = []; }
    }
    batch(pending);
    log(`  ${table}: ${count.toLocaleString('en')} rows in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

async function loadPostgres(url, scaleName, log) {
  const { default: pg } = await import('pg');
  const { searchableText } = await import('../dist/src/services/search/postgres-search-index.js');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const TYPES = { id: 'int', taskId: 'int', itemId: 'int', position: 'int', version: 'int', turn: 'int', planTaskId: 'int', memoryId: 'int',
    pendingItems: 'int', inProgressItems: 'int', doneItems: 'int', droppedItems: 'int', blockedItems: 'int', failedItems: 'int',
    deleted: 'bool', added: 'bool', archived: 'bool', planStanding: 'bool' };
  try {
    for (const table of TABLES) {
      const started = Date.now();
      const columns = COLUMNS[table];
      const sql = table === 'memory_search'
        ? `INSERT INTO "memory_search" ("memoryId", "document")
           SELECT m, setweight(to_tsvector('simple', t), 'A') || setweight(to_tsvector('simple', b), 'B') FROM unnest($1::int[], $2::text[], $3::text[]) AS u(m, t, b)`
        : `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(', ')})
           SELECT * FROM unnest(${columns.map((c, i) => `$${i + 1}::${(table === 'sessions' && c === 'id' ? null : TYPES[c]) ?? 'text'}[]`).join(', ')})`;
      let count = 0;
      let arrays = columns.map(() => []);
      const flush = async () => {
        if (arrays[0].length) await client.query(sql, arrays);
        arrays = columns.map(() => []);
      };
      await client.query('BEGIN');
      for (const row of rows(scaleName, table)) {
        const values = table === 'memory_search' ? [row[0], searchableText(row[1]), searchableText(row[2])] : row;
        values.forEach((value, i) => arrays[i].push(value));
        count += 1;
        if (arrays[0].length === 20_000) await flush();
      }
      await flush();
      await client.query('COMMIT');
      log(`  ${table}: ${count.toLocaleString('en')} rows in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
    // Ids were given explicitly: move each sequence past them, as the API's inserts would have.
    for (const table of ['memories', 'items', 'comments']) {
      await client.query(`SELECT setval(pg_get_serial_sequence('"${table}"', 'id'), (SELECT COALESCE(MAX("id"), 1) FROM "${table}"))`);
    }
    await client.query('ANALYZE');
  } finally {
    await client.end();
  }
}

/** A fresh database for this scale: the file (SQLite) or the database (PostgreSQL) is replaced. */
export async function buildDatabase({ kind, scaleName, sqliteFile, postgresBase, log }) {
  const started = Date.now();
  let databaseUrl;
  if (kind === 'sqlite') {
    fs.mkdirSync(path.dirname(sqliteFile), { recursive: true });
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(sqliteFile + suffix, { force: true });
    databaseUrl = `sqlite:${sqliteFile}`;
    await migrate(databaseUrl);
    await loadSqlite(sqliteFile, scaleName, log);
  } else {
    const { default: pg } = await import('pg');
    const name = `taskbase_bench_${scaleName}`;
    const admin = new pg.Client({ connectionString: `${postgresBase}/postgres` });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${name}"`);
    await admin.query(`CREATE DATABASE "${name}"`);
    await admin.end();
    databaseUrl = `${postgresBase}/${name}`;
    await migrate(databaseUrl);
    await loadPostgres(databaseUrl, scaleName, log);
  }
  return { databaseUrl, seconds: (Date.now() - started) / 1000 };
}
