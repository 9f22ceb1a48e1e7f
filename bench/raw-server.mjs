/**
 * The bench's second reference: a plain node:http handler that does the
 * dashboard read's, updateItem's and writeTodos's SQL directly with the same
 * driver (no GraphQL, no ORM), answering the same data. What the server costs
 * above this is what GraphQL, TypeORM and our own code add. The writes are
 * written by hand and commit, one transaction each, as the server's do.
 *
 *   node bench/raw-server.mjs <DATABASE_URL> <port>
 *   POST /dashboard   {"id": "<task id>"}
 *   POST /update-item {"id": "<item id>", "state": "DONE"}
 *   POST /write-floor {"id": "<item id>", "taskId": "<its task>", "state": "DONE"}
 *     the write floor: the least a recorded change of an item writes, the
 *     item's row and one history row, in one transaction that commits. No
 *     read, no version, no counts, no change log: a strict part of what
 *     updateItem must write (the server's updateItem writes all four).
 *   POST /write-todos {"todos": [{"content": "…", "status": "DONE"}, …]}
 *     with the session in x-session-id (or "session" in the body): the
 *     session's plan replaced by the list, the server's statements in its
 *     order (writeTodos below).
 *   POST /replay/<name>   (any body): the statements the bench recorded from
 *     one of the server's own reads (src/server/bench-probe.ts), run again with
 *     the driver, in order, the rows answered as JSON: the raw handler of a
 *     read whose SQL is the server's, whatever the server's readers become.
 *   POST /payload/<name>  (any JSON body): the payload floor, taskbase's own
 *     answer for a workload, JSON.stringify'd again for every request: what
 *     serving those bytes costs in Node, with no database and no GraphQL.
 * The bench hands over both by IPC ({type: 'replay', name, statements},
 * {type: 'payload', name, answer}). {type: 'remind-all'} marks every session
 * reminded just now, so no turn has one due (endTurn's workload starts there).
 */
import http from 'node:http';
import { cpuProfiles } from '../dist/src/server/bench-probe.js';

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
      tx: (work) => {
        const run = queue.then(async () => {
          write('BEGIN IMMEDIATE');
          try {
            const result = await work(write);
            write('COMMIT');
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
  // Each text is a named statement, so a connection parses and plans it once, as the server's are
  // (src/services/kernel/statements.ts) and as better-sqlite3's prepared statements are above.
  const names = new Map();
  const named = (text, values) => {
    let name = names.get(text);
    if (!name) names.set(text, (name = `raw${names.size + 1}`));
    return { name, text, values };
  };
  const on = (client) => async (sql, params = []) => {
    statements += 1;
    return (await client.query(named(numbered(sql), params))).rows;
  };
  return {
    read: on(pool),
    // SQL recorded from the server is numbered already ($1, $2, …).
    readNumbered: async (sql, params = []) => { statements += 1; return (await pool.query(named(sql, params))).rows; },
    tx: async (work) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await work(on(client));
        await client.query('COMMIT');
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

/**
 * A read's recorded statements in order, brackets left out, on the read side
 * (the pool, or the read-only SQLite connection).
 */
async function replay(name) {
  const statements = replays.get(name);
  if (!statements) throw new Error(`no statements recorded for ${name}`);
  const results = [];
  for (const { sql, parameters } of statements) {
    if (BRACKET.test(sql)) continue;
    if (postgres) {
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

/**
 * The write floor: an item's new state and a history row saying so, one transaction, nothing read. The history row
 * carries the change and an empty list after it (the bench's reads never show these tasks' history).
 */
async function writeFloor(id, taskId, state) {
  const now = new Date().toISOString();
  return driver.tx(async (run) => {
    await run('UPDATE "items" SET "state" = ?, "updatedAt" = ? WHERE "id" = ?', [state, now, id]);
    await run('INSERT INTO "task_events" ("taskId", "at", "action", "sessionId", "items", "changes") VALUES (?, ?, ?, NULL, ?, ?)',
      [taskId, now, 'ITEM_STATE', '[]', JSON.stringify([{ id: String(id), to: state }])]);
    return { id: String(id), state };
  });
}

/** The history actions that change a list (src/domain/history.ts LIST_ACTIONS): a plan whose latest such row is PLAN_CLEARED was cleared. */
const LIST_ACTIONS = ['TASK_CREATED', 'ITEM_STATE', 'ITEMS_ADDED', 'ITEM_RENAMED', 'ITEM_DELETED', 'ITEM_MOVED', 'PLAN_WRITTEN', 'PLAN_CLEARED', 'ITEM_RESTORED'];
const marks = (n) => Array.from({ length: n }, () => '?').join(', ');
const snapshot = (items) => items.filter((i) => !truthy(i.deleted)).map((i) => ({ id: String(i.id), text: i.text, state: i.state }));

/**
 * writeTodos's writes, in the server's order (src/services/sessions/plan.service.ts): the calling session (its
 * owner, then the row locked), its plan task (locked) and every item of it, whether the plan was cleared; the list
 * sent replaces the live list by text: a text kept keeps its item and takes the new state (its note cleared),
 * new texts are inserted at the end, items left out are marked deleted; positions follow the list; the task's
 * counts and version (compare-and-set), the history row with the list after it and what changed, the session's
 * plan standing again (and its name, on its first plan), and the change log's two rows (the task's and the
 * session's), under the log's advisory lock on PostgreSQL. One transaction, committed. Not mirrored: the plan
 * rules' checks (done in memory) and the purge of old deleted steps, which starts past 200 deleted steps
 * (plan-purge.ts), more than a bench plan collects; the bench's lists never reorder kept steps, so no MOVED.
 */
async function writeTodos(sessionId, todos) {
  const now = new Date().toISOString();
  const lock = postgres ? ' FOR NO KEY UPDATE' : '';
  const bool = (value) => (postgres ? value : value ? 1 : 0);
  return driver.tx(async (run) => {
    const [owner] = await run('SELECT "id", "owner" FROM "sessions" WHERE "id" = ?', [sessionId]);
    if (!owner) return null;
    const [session] = await run(`SELECT * FROM "sessions" s WHERE s."id" = ?${lock}`, [sessionId]);
    if (session.planTaskId === null) throw new Error(`session ${sessionId} has no plan task (the bench's sessions all have one)`);
    const [task] = await run(`SELECT * FROM "memories" m WHERE m."id" = ?${lock}`, [session.planTaskId]);
    const items = await run('SELECT * FROM "items" i WHERE i."taskId" IN (?) ORDER BY i."position" ASC, i."id" ASC', [task.id]);
    const cleared = await run(`SELECT e."taskId" FROM "task_events" e WHERE e."id" IN (SELECT MAX(l."id") FROM "task_events" l`
      + ` WHERE l."taskId" IN (?) AND l."action" IN (${marks(LIST_ACTIONS.length)}) GROUP BY l."taskId") AND e."action" = ?`,
    [task.id, ...LIST_ACTIONS, 'PLAN_CLEARED']);
    const current = cleared.length === 0;
    const before = snapshot(items);

    // The list sent, matched by text against the live items: the first live item of a text keeps it.
    const byText = new Map();
    for (const item of items) if (!truthy(item.deleted) && !byText.has(item.text)) byText.set(item.text, item);
    const next = todos.map((todo) => ({ text: todo.content.trim().normalize('NFC'), state: todo.status }))
      .map((todo) => ({ ...todo, item: byText.get(todo.text) ?? null }));
    const kept = new Set(next.filter((todo) => todo.item).map((todo) => todo.item));
    const removed = items.filter((item) => !truthy(item.deleted) && !kept.has(item));
    if (removed.length) {
      await run(`UPDATE "items" SET "deleted" = ?, "updatedAt" = ? WHERE "id" IN (${marks(removed.length)})`, [bool(true), now, ...removed.map((item) => item.id)]);
      for (const item of removed) Object.assign(item, { deleted: true, updatedAt: now });
    }
    for (const todo of next) {
      if (!todo.item || todo.item.state === todo.state) continue;
      await run('UPDATE "items" SET "state" = ?, "note" = ?, "updatedAt" = ? WHERE "id" = ?', [todo.state, null, now, todo.item.id]);
      Object.assign(todo.item, { state: todo.state, note: null, updatedAt: now });
    }
    const fresh = next.filter((todo) => !todo.item);
    if (fresh.length) {
      const rows = fresh.map((todo, index) => ({ taskId: task.id, text: todo.text, state: todo.state, position: items.length + index, deleted: false, added: current, note: null }));
      const returned = await run(`INSERT INTO "items" ("taskId", "text", "state", "position", "deleted", "added", "note", "createdAt", "updatedAt") VALUES ${
        rows.map(() => `(${marks(9)})`).join(', ')} RETURNING "id", "position"`,
      rows.flatMap((row) => [row.taskId, row.text, row.state, row.position, bool(false), bool(row.added), null, now, now]));
      const byPosition = new Map(rows.map((row) => [row.position, row]));
      for (const { id, position } of returned) byPosition.get(Number(position)).id = Number(id);
      fresh.forEach((todo, index) => { todo.item = rows[index]; });
    }
    // The new order: the list sent, each item no longer live kept right after the nearest earlier live one (whole-list.ts).
    const live = new Set(next.map((todo) => todo.item));
    const leading = [];
    const following = new Map();
    let anchor = null;
    for (const item of items) {
      if (live.has(item)) anchor = item;
      else if (anchor === null) leading.push(item);
      else following.set(anchor, [...(following.get(anchor) ?? []), item]);
    }
    const ordered = [...leading, ...next.flatMap((todo) => [todo.item, ...(following.get(todo.item) ?? [])])];
    for (const [position, item] of ordered.entries()) {
      if (item.position === position) continue;
      item.position = position;
      await run('UPDATE "items" SET "position" = ? WHERE "id" = ?', [position, item.id]);
    }

    const c = progressOf(ordered);
    const bumped = await run(`UPDATE "memories" SET "version" = ?, "updatedAt" = ?, "pendingItems" = ?, "inProgressItems" = ?, "doneItems" = ?,
      "droppedItems" = ?, "blockedItems" = ?, "failedItems" = ?, "taskState" = ? WHERE "id" = ? AND "version" = ? RETURNING "id"`,
    [task.version + 1, now, c.pending, c.inProgress, c.done, c.dropped, c.blocked, c.failed, stateOf(c), task.id, task.version]);
    if (bumped.length === 0) throw new Error(`task ${task.id} changed under the lock`);
    const after = snapshot(ordered);
    const was = new Map(before.map((item) => [item.id, item]));
    const afterIds = new Set(after.map((item) => item.id));
    const changes = [
      ...after.flatMap((item) => {
        const old = was.get(item.id);
        if (!old) return [{ itemId: item.id, kind: 'ADDED', text: item.text, from: null, to: item.state }];
        return old.state === item.state ? [] : [{ itemId: item.id, kind: 'STATE', text: item.text, from: old.state, to: item.state }];
      }),
      ...before.filter((old) => !afterIds.has(old.id)).map((old) => ({ itemId: old.id, kind: 'REMOVED', text: old.text, from: old.state, to: null })),
    ];
    await run('INSERT INTO "task_events" ("taskId", "at", "action", "sessionId", "items", "changes") VALUES (?, ?, ?, ?, ?, ?)',
      [task.id, now, 'PLAN_WRITTEN', sessionId, JSON.stringify(after), JSON.stringify(changes)]);
    await run('UPDATE "sessions" SET "planTaskId" = ?, "planStanding" = ?, "finishedAt" = ? WHERE "id" = ?', [task.id, bool(true), null, sessionId]);
    if (session.name === null && after.length) {
      // A session with no name takes its first plan's first step (session-store.ts storeSessionName), and the words a search finds it by.
      const name = [...after[0].text.replace(/\s+/g, ' ').trim()].slice(0, 120).join('');
      await run('UPDATE "sessions" SET "name" = ? WHERE "id" = ?', [name, sessionId]);
      const words = [...new Set(name.normalize('NFKC').toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean))];
      if (words.length) await run(`INSERT INTO "session_name_words" ("word", "sessionId") VALUES ${words.map(() => '(?, ?)').join(', ')}`, words.flatMap((word) => [word, sessionId]));
    }
    // The change log (src/services/kernel/changes/change-log.ts): the task's row and the session's, appended last.
    if (postgres) await run(`SELECT pg_advisory_xact_lock(x'74626368616e6765'::bigint), pg_notify(?, '')`, ['taskbase_changes']);
    const changedIds = new Set(changes.map((change) => change.itemId));
    const soleItem = changedIds.size === 1 ? Number([...changedIds][0]) : null;
    await run(`INSERT INTO "changes" ("at", "action", "entity", "entityId", "kind", "domain", "taskId", "itemId", "sessionId", "madeBy") VALUES (${marks(10)}), (${marks(10)})`, [
      now, 'PLAN_WRITTEN', 'TASK', String(task.id), 'TASK', null, task.id, soleItem, sessionId, sessionId,
      now, 'PLAN_WRITTEN', 'SESSION', sessionId, null, null, null, null, sessionId, sessionId,
    ]);
    const count = (state) => after.filter((item) => item.state === state).length;
    return { message: `Updated todo list: ${count('PENDING')} pending, ${count('IN_PROGRESS')} in progress, ${count('DONE')} completed.` };
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
      if (req.url === '/write-floor') return send(res, 200, { data: { updateItem: await writeFloor(Number(input.id), Number(input.taskId), input.state) } });
      if (req.url === '/write-todos') {
        const session = req.headers['x-session-id'] ?? input.session;
        const answer = session ? await writeTodos(String(session), input.todos) : null;
        if (!answer) return send(res, 200, { errors: [{ message: 'NO_SESSION: start a session and send its id in x-session-id' }], data: null });
        return send(res, 200, { data: { writeTodos: answer } });
      }
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
const profiles = cpuProfiles((message) => process.send(message));
process.on('message', (message) => {
  profiles(message);
  if (message?.type === 'probe') process.send({ type: 'probe', statements, maxRssKb: process.resourceUsage().maxRSS, rssBytes: process.memoryUsage.rss() });
  if (message?.type === 'replay') {
    replays.set(message.name, message.statements);
    process.send({ type: 'replay-set' });
  }
  if (message?.type === 'remind-all') {
    // Every session reminded just now, in one transaction that commits like any other writer's.
    driver.tx((run) => run('UPDATE "sessions" SET "lastRemindedAt" = ?', [new Date().toISOString()]))
      .then(() => process.send({ type: 'all-reminded', ok: true }), (error) => process.send({ type: 'all-reminded', ok: false, error: String(error?.message ?? error) }));
  }
  if (message?.type === 'payload') {
    payloads.set(message.name, message.answer);
    process.send({ type: 'payload-set' });
  }
});
// The bench's IPC channel closes when the bench ends, however it ends: this process goes with it.
process.on('disconnect', () => process.exit(0));
server.listen(Number(port), '127.0.0.1');
