/**
 * The bench's second reference: a plain node:http handler that does the
 * dashboard read's and updateItem's SQL directly with the same driver (no
 * GraphQL, no ORM), answering the same data. What the server costs above
 * this is what GraphQL, TypeORM and our own code add.
 *
 *   node bench/raw-server.mjs <DATABASE_URL> <port>
 *   POST /dashboard   {"id": "<task id>"}
 *   POST /update-item {"id": "<item id>", "state": "DONE"}
 *   POST /replay/<name>   (any body): the statements the bench recorded from
 *     one of the server's own requests (src/bench-probe.ts), run again with
 *     the driver, in order, the rows answered as JSON: the raw handler of a
 *     read whose SQL is the server's, whatever the server's readers become.
 *     A write's (writeTodos) run in one transaction on the writer, as the
 *     server runs them behind its write lock, and rolled back.
 *   POST /payload/<name>  (any JSON body): the payload floor, taskbase's own
 *     answer for a workload, JSON.stringify'd again for every request: what
 *     serving those bytes costs in Node, with no database and no GraphQL.
 * The bench hands over both by IPC ({type: 'replay', name, statements},
 * {type: 'payload', name, answer}).
 */
import http from 'node:http';

const [databaseUrl, port] = process.argv.slice(2);
const postgres = databaseUrl.startsWith('postgres');
let statements = 0;

/** run(sql, params) → rows; tx(work) runs work(run) in one transaction. `?` placeholders on both drivers. */
async function openDriver() {
  if (!postgres) {
    const { default: Sqlite } = await import('better-sqlite3');
    const writer = new Sqlite(databaseUrl.slice('sqlite:'.length));
    // As the server's writer (src/db/data-source.ts): commits synced at WAL checkpoints, foreign keys checked.
    writer.pragma('synchronous = NORMAL');
    writer.pragma('foreign_keys = ON');
    writer.pragma('busy_timeout = 5000');
    const reader = new Sqlite(databaseUrl.slice('sqlite:'.length), { readonly: true });
    const cache = new Map();
    const on = (db) => (sql, params = []) => {
      statements += 1;
      const key = `${db === writer ? 'w' : 'r'}${sql}`;
      let statement = cache.get(key);
      if (!statement) cache.set(key, (statement = db.prepare(sql)));
      return statement.reader ? statement.all(params) : (statement.run(params), []);
    };
    const read = on(reader);
    const write = on(writer);
    let queue = Promise.resolve();
    return {
      read: async (sql, params) => read(sql, params),
      // One writer connection: transactions take turns, as behind the server's write lock.
      tx: (work, { rollback = false } = {}) => {
        const run = queue.then(async () => {
          write('BEGIN IMMEDIATE');
          try {
            const result = await work(write);
            write(rollback ? 'ROLLBACK' : 'COMMIT');
            return result;
          } catch (error) {
            write('ROLLBACK');
            throw error;
          }
        });
        queue = run.catch(() => undefined);
        return run;
      },
    };
  }
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  const numbered = (sql) => { let n = 0; return sql.replace(/\?/g, () => `$${++n}`); };
  // SQL recorded from the server is numbered already ($1, $2, …): { numbered: true } sends it as it is.
  const on = (client) => async (sql, params = [], { numbered: ready = false } = {}) => {
    statements += 1;
    return (await client.query(ready ? sql : numbered(sql), params)).rows;
  };
  return {
    read: on(pool),
    // SQL recorded from the server is numbered already ($1, $2, …).
    readNumbered: async (sql, params = []) => { statements += 1; return (await pool.query(sql, params)).rows; },
    tx: async (work, { rollback = false } = {}) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await work(on(client));
        await client.query(rollback ? 'ROLLBACK' : 'COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      } finally {
        client.release();
      }
    },
  };
}

const driver = await openDriver();
const replays = new Map();
const payloads = new Map();
// A read transaction's brackets (and its SET LOCALs) are the pool's to manage here; the statements between them are the read.
const BRACKET = /^\s*(BEGIN|COMMIT|ROLLBACK|START TRANSACTION|SAVEPOINT|RELEASE|SET)\b/i;
const sqliteValue = (value) => (typeof value === 'boolean' ? (value ? 1 : 0) : value);

async function replay(name) {
  const recorded = replays.get(name);
  if (!recorded) throw new Error(`no statements recorded for ${name}`);
  // Rolled back: every replay does the same work on the same rows (committed, each would add the plan's new steps
  // again and the next would read a longer list). It skips the commit's own write, so it is if anything the faster.
  if (recorded.write) return driver.tx(async (run) => runAll(recorded.statements, run), { rollback: true });
  return runAll(recorded.statements, null);
}

/**
 * The recorded statements in order, brackets left out: a read's on the read
 * side (the pool, or the read-only SQLite connection), a write's with `run`,
 * inside the one transaction `tx` opened for it on the writer.
 */
async function runAll(statements, run) {
  const results = [];
  for (const { sql, parameters } of statements) {
    if (BRACKET.test(sql)) continue;
    if (run) {
      results.push(await run(sql, postgres ? parameters : parameters.map(sqliteValue), { numbered: true }));
    } else if (postgres) {
      results.push(await driver.readNumbered(sql, parameters));
    } else {
      results.push(await driver.read(sql, parameters.map(sqliteValue)));
    }
  }
  return results;
}
const REF = /\[\[#(\d+)\]\]/g;
const truthy = (value) => value === true || value === 1;

function progressOf(items) {
  const counts = { done: 0, total: 0, pending: 0, inProgress: 0, dropped: 0, blocked: 0, failed: 0 };
  const key = { DONE: 'done', PENDING: 'pending', IN_PROGRESS: 'inProgress', DROPPED: 'dropped', BLOCKED: 'blocked', FAILED: 'failed' };
  for (const item of items) if (!truthy(item.deleted)) { counts.total += 1; counts[key[item.state]] += 1; }
  return counts;
}

function stateOf(progress) {
  if (progress.total === 0 || progress.pending + progress.inProgress + progress.blocked + progress.failed > 0) return 'OPEN';
  return progress.done > 0 ? 'COMPLETED' : 'CANCELLED';
}

async function dashboard(id) {
  const [task] = await driver.read('SELECT * FROM "memories" WHERE "id" = ?', [id]);
  if (!task) return null;
  const [items, notes, noteItems, comments, links] = await Promise.all([
    driver.read('SELECT * FROM "items" WHERE "taskId" = ? ORDER BY "position", "id"', [id]),
    driver.read('SELECT * FROM "task_notes" WHERE "taskId" = ? ORDER BY "id"', [id]),
    driver.read('SELECT n."noteId", n."itemId" FROM "task_note_items" n JOIN "task_notes" t ON t."id" = n."noteId" WHERE t."taskId" = ?', [id]),
    driver.read('SELECT * FROM "comments" WHERE "taskId" = ? ORDER BY "id"', [id]),
    driver.read('SELECT l."itemId", m."id", m."kind", m."title", m."domain" FROM "item_links" l JOIN "items" i ON i."id" = l."itemId" JOIN "memories" m ON m."id" = l."memoryId" WHERE i."taskId" = ?', [id]),
  ]);
  const refs = new Map();
  let number = 0;
  for (const item of items) refs.set(String(item.id), { id: String(item.id), number: truthy(item.deleted) ? null : ++number, text: item.text, deleted: truthy(item.deleted) });
  const render = (text) => (text ?? '').replace(REF, (token, ref) => {
    const target = refs.get(ref);
    return !target ? token : target.deleted ? `[deleted item: ${target.text}]` : `[#${target.number} ${target.text}]`;
  });
  const refsIn = (...texts) => [...new Set([...texts.join(' ').matchAll(REF)].map((m) => m[1]))].map((ref) => refs.get(ref)).filter(Boolean);
  const progress = progressOf(items);
  const live = items.filter((item) => !truthy(item.deleted));
  return {
    id: String(task.id), title: task.title, goal: task.goal, goalText: render(task.goal), goalRefs: refsIn(task.goal),
    state: stateOf(progress), version: task.version, updatedAt: task.updatedAt, progress,
    inProgress: live.filter((item) => item.state === 'IN_PROGRESS').map((item) => refs.get(String(item.id))),
    items: {
      totalCount: live.length,
      nodes: live.map((item) => ({
        ...refs.get(String(item.id)), state: item.state, added: truthy(item.added), note: item.note,
        comments: { totalCount: comments.filter((c) => c.itemId === item.id).length },
        notes: { totalCount: noteItems.filter((n) => n.itemId === item.id).length },
        related: links.filter((l) => l.itemId === item.id).map((l) => ({ id: String(l.id), kind: l.kind, title: l.title, domain: l.domain })),
      })),
    },
    notes: {
      totalCount: notes.length,
      nodes: notes.map((note) => {
        const brief = note.brief ? JSON.parse(note.brief) : null;
        return {
          id: String(note.id), title: note.title, body: note.body, bodyText: render(note.body),
          items: noteItems.filter((n) => n.noteId === note.id).map((n) => refs.get(String(n.itemId))),
          brief: brief && { ...brief, goalText: render(brief.goal), stepsText: render(brief.steps), contextText: render(brief.context),
            pitfallsText: render(brief.pitfalls), doneWhenText: render(brief.doneWhen), extraInfoText: render(brief.extraInfo),
            dependsOn: brief.dependsOn.map((d) => ({ item: refs.get(d.item), reason: d.reason })) },
        };
      }),
    },
    comments: { totalCount: comments.length, nodes: comments.map((c) => ({ id: String(c.id), body: c.body, bodyText: render(c.body), item: c.itemId ? refs.get(String(c.itemId)) : null, createdAt: c.createdAt })) },
  };
}

/** updateItem's writes: the item, the task's version (compare-and-set), the history row with the list after it, the search document. */
async function updateItem(id, state) {
  const now = new Date().toISOString();
  return driver.tx(async (run) => {
    const [item] = await run('SELECT * FROM "items" WHERE "id" = ?', [id]);
    if (!item) return null;
    const [task] = await run(`SELECT * FROM "memories" WHERE "id" = ?${postgres ? ' FOR UPDATE' : ''}`, [item.taskId]);
    const items = await run('SELECT * FROM "items" WHERE "taskId" = ? ORDER BY "position", "id"', [task.id]);
    const before = items.filter((i) => !truthy(i.deleted)).map((i) => ({ id: String(i.id), text: i.text, state: i.state }));
    if (item.state !== state) {
      await run('UPDATE "items" SET "state" = ?, "note" = NULL, "updatedAt" = ? WHERE "id" = ?', [state, now, id]);
      for (const other of items) if (other.id === item.id) other.state = state;
      const c = progressOf(items);
      await run(`UPDATE "memories" SET "version" = "version" + 1, "updatedAt" = ?, "pendingItems" = ?, "inProgressItems" = ?, "doneItems" = ?,
        "droppedItems" = ?, "blockedItems" = ?, "failedItems" = ?, "taskState" = ? WHERE "id" = ? AND "version" = ?`,
      [now, c.pending, c.inProgress, c.done, c.dropped, c.blocked, c.failed, stateOf(c), task.id, task.version]);
      const after = items.filter((i) => !truthy(i.deleted)).map((i) => ({ id: String(i.id), text: i.text, state: i.state }));
      const changes = [{ id: String(item.id), from: item.state, to: state }];
      await run('INSERT INTO "task_events" ("taskId", "at", "action", "sessionId", "items", "changes") VALUES (?, ?, ?, NULL, ?, ?)',
        [task.id, now, 'ITEM_STATE', JSON.stringify(after), JSON.stringify(changes)]);
      task.version += 1;
      void before;
    }
    const progress = progressOf(items);
    return { id: String(item.id), state, note: null, task: { id: String(task.id), version: task.version, state: stateOf(progress), progress: { done: progress.done, total: progress.total } } };
  });
}

function send(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => { body += chunk; });
  req.on('end', async () => {
    try {
      const input = body ? JSON.parse(body) : {};
      if (req.url === '/dashboard') return send(res, 200, { data: { task: await dashboard(Number(input.id)) } });
      if (req.url === '/update-item') return send(res, 200, { data: { updateItem: await updateItem(Number(input.id), input.state) } });
      if (req.url.startsWith('/replay/')) return send(res, 200, { data: await replay(decodeURIComponent(req.url.slice('/replay/'.length))) });
      if (req.url.startsWith('/payload/')) {
        const answer = payloads.get(decodeURIComponent(req.url.slice('/payload/'.length)));
        if (answer === undefined) return send(res, 404, { error: 'no payload recorded' });
        return send(res, 200, answer);
      }
      if (req.url === '/healthz') return send(res, 200, { status: 'ok' });
      send(res, 404, { error: 'not found' });
    } catch (error) {
      send(res, 500, { error: String(error?.message ?? error) });
    }
  });
});
process.on('message', (message) => {
  if (message?.type === 'probe') process.send({ type: 'probe', statements, maxRssKb: process.resourceUsage().maxRSS, rssBytes: process.memoryUsage.rss() });
  if (message?.type === 'replay') {
    replays.set(message.name, { statements: message.statements, write: message.write === true });
    process.send({ type: 'replay-set' });
  }
  if (message?.type === 'payload') {
    payloads.set(message.name, message.answer);
    process.send({ type: 'payload-set' });
  }
});
// The bench's IPC channel closes when the bench ends, however it ends: this process goes with it.
process.on('disconnect', () => process.exit(0));
server.listen(Number(port), '127.0.0.1');
