/**
 * Each domain's counts (tasks, open tasks, notes, active notes) are kept in
 * the write transaction, so domains() and the memories pages never count a
 * scope's memories. They are derived data: after a seeded random sequence of
 * writes through GraphQL and MCP mixed (tasks and notes created, moved,
 * opened and settled, items added and deleted, notes archived, plans
 * written), they equal a recount of the memories, and what domains() and
 * memories(totalCount) answer follows the recount. A database written before
 * the counts existed gets them when it is migrated.
 */
import { DataSource } from 'typeorm';
import { describe, expect, it } from 'vitest';
import { Database } from '../../src/db/database.js';
import { dataSourceOptions } from '../../src/db/data-source.js';
import { MIGRATIONS } from '../../src/db/migrations/index.js';
import { DomainCounts1764570000000 } from '../../src/db/migrations/1764570000000-domain-counts.js';
import { testDatabase } from '../harness.js';
import { ADD_ITEMS, CREATE_NOTE, DELETE_ITEM, EDIT_NOTE, EDIT_TASK, MEMORIES, UPDATE_ITEM } from '../fixtures/documents.js';
import { serverWithMcp } from '../fixtures/mcp.js';
import { startSession, writeTodos } from '../fixtures/sessions.js';

const { server, mcp } = serverWithMcp({ tools: 'knowledge-base' });

interface Counts { tasks: number; openTasks: number; notes: number; activeNotes: number }
type Query = (sql: string) => Promise<Record<string, unknown>[]>;

/** The kept counts of every domain that holds memories, straight from the table. */
async function kept(query: Query): Promise<Record<string, Counts>> {
  // On PostgreSQL a domain's counts are kept over shard rows, summed on read.
  const rows = await query(`SELECT "domain", SUM("tasks") AS "tasks", SUM("openTasks") AS "openTasks", SUM("notes") AS "notes", SUM("activeNotes") AS "activeNotes"
    FROM "domain_counts" GROUP BY "domain" HAVING SUM("tasks") > 0 OR SUM("notes") > 0`);
  return Object.fromEntries(rows.map((row) => [String(row.domain), {
    tasks: Number(row.tasks), openTasks: Number(row.openTasks), notes: Number(row.notes), activeNotes: Number(row.activeNotes),
  }]));
}

/** The same counts recounted from every memory row: the knowledge base's (a domain, no session), by the lists' rules. */
async function recounted(query: Query): Promise<Record<string, Counts>> {
  const rows = await query(`SELECT "domain", "kind", "taskState", "archived", "sessionId" FROM "memories"`);
  const counts: Record<string, Counts> = {};
  for (const row of rows) {
    if (row.domain === null || row.sessionId !== null) continue;
    const own = (counts[String(row.domain)] ??= { tasks: 0, openTasks: 0, notes: 0, activeNotes: 0 });
    if (row.kind === 'TASK') {
      own.tasks += 1;
      if (row.taskState === 'OPEN') own.openTasks += 1;
    } else {
      own.notes += 1;
      if (!row.archived) own.activeNotes += 1;
    }
  }
  return counts;
}

/** domains() as the recount says it should answer: every path with memories at or below it, counts over its subtree. */
function treeOf(counts: Record<string, Counts>) {
  const paths = new Map<string, { path: string; openTasks: number; tasks: number; notes: number }>();
  for (const [domain, own] of Object.entries(counts)) {
    const segments = domain.split('/');
    for (let depth = 1; depth <= segments.length; depth += 1) {
      const path = segments.slice(0, depth).join('/');
      const node = paths.get(path) ?? { path, openTasks: 0, tasks: 0, notes: 0 };
      node.openTasks += own.openTasks;
      node.tasks += own.tasks;
      node.notes += own.notes;
      paths.set(path, node);
    }
  }
  return [...paths.values()].sort((a, b) => (a.path < b.path ? -1 : 1));
}

/** Kept equals recounted, and domains() and the memories totals answer what the recount says. */
async function expectCountsMatch(step: string) {
  const query: Query = (sql) => server.app.services.db.reader.query(sql);
  const recount = await recounted(query);
  expect(await kept(query), `after ${step}`).toEqual(recount);
  const { domains } = await server.ok('{ domains { path openTasks tasks notes } }');
  expect(domains, `domains() after ${step}`).toEqual(treeOf(recount));
  for (const scope of ['kb', 'kb/alpha']) {
    const inScope = Object.entries(recount).filter(([domain]) => domain === scope || domain.startsWith(`${scope}/`)).map(([, own]) => own);
    const sum = (pick: (own: Counts) => number) => inScope.reduce((total, own) => total + pick(own), 0);
    const expected: [string | null, string | null, number][] = [
      [null, null, sum((own) => own.tasks + own.notes)],
      ['TASK', 'ACTIVE', sum((own) => own.openTasks)],
      ['TASK', 'ARCHIVED', sum((own) => own.tasks - own.openTasks)],
      ['NOTE', 'ARCHIVED', sum((own) => own.notes - own.activeNotes)],
      [null, 'ACTIVE', sum((own) => own.openTasks + own.activeNotes)],
    ];
    for (const [kind, status, total] of expected) {
      const { memories } = await server.ok(MEMORIES, { domain: scope, kind, status, first: 200 });
      expect(memories.totalCount, `memories(${scope}, ${kind}, ${status}) after ${step}`).toBe(total);
      expect(memories.nodes, `memories(${scope}, ${kind}, ${status}) after ${step}`).toHaveLength(total);
    }
  }
}

/** A small seeded generator (mulberry32), so a failure replays the same sequence. */
function seeded(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { below: (n: number) => Math.floor(next() * n), pick: <T>(list: readonly T[]) => list[Math.floor(next() * list.length)] };
}

const DOMAINS = ['kb', 'kb/alpha', 'kb/alpha/deep', 'kb/alpha-v2', 'kb/beta', 'other/x'];

describe('the kept domain counts', () => {
  it('equal a recount after a seeded random sequence of GraphQL and MCP writes', async () => {
    const random = seeded(20_261_201);
    const tasks: { id: string; items: string[] }[] = [];
    const notes: string[] = [];
    const session = await startSession(server);
    let added = 0;
    const newTask = async (viaMcp: boolean) => {
      const domain = random.pick(DOMAINS);
      const labels = Array.from({ length: 1 + random.below(3) }, (_, i) => `Step ${i + 1}`);
      if (viaMcp) {
        const { data } = await mcp.ok('task', { title: `Task ${tasks.length}`, goal: 'Keep counts.', items: labels.join('\n'), domain });
        tasks.push({ id: data.uid, items: data.items });
      } else {
        const { createTask } = await server.ok('mutation($input: CreateTaskInput!) { createTask(input: $input) { task { id } items { id } } }', {
          input: { title: `Task ${tasks.length}`, goal: 'Keep counts.', items: labels, domain },
        });
        tasks.push({ id: createTask.task.id, items: createTask.items.map((item: { id: string }) => item.id) });
      }
    };
    const newNote = async (viaMcp: boolean) => {
      const domain = random.pick(DOMAINS);
      if (viaMcp) notes.push((await mcp.ok('remember', { title: `Note ${notes.length}`, body: 'Counted.', domain })).data.uid);
      else notes.push((await server.ok(CREATE_NOTE, { input: { title: `Note ${notes.length}`, body: 'Counted.', domain } })).createNote.id);
    };
    for (let i = 0; i < 4; i += 1) await newTask(i % 2 === 0);
    for (let i = 0; i < 2; i += 1) await newNote(i % 2 === 0);

    const writes: [string, (viaMcp: boolean) => Promise<unknown>][] = [
      ['a task created', newTask],
      ['a note created', newNote],
      ['an item\'s state changed', async (viaMcp) => {
        const task = random.pick(tasks);
        const item = random.pick(task.items);
        if (viaMcp) return mcp.call('task_item', { uid: task.id, item, state: random.pick(['todo', 'doing', 'done', 'dropped']) });
        return server.gql(UPDATE_ITEM, { input: { id: item, state: random.pick(['PENDING', 'IN_PROGRESS', 'DONE', 'DROPPED', 'BLOCKED']) } });
      }],
      ['every item of a task settled', async (viaMcp) => {
        const task = random.pick(tasks);
        for (const item of task.items) {
          if (viaMcp) await mcp.call('task_item', { uid: task.id, item, state: 'done' });
          else await server.gql(UPDATE_ITEM, { input: { id: item, state: 'DONE' } });
        }
      }],
      ['an item added', async (viaMcp) => {
        const task = random.pick(tasks);
        if (viaMcp) {
          const result = await mcp.call('task_add', { uid: task.id, items: `Added ${(added += 1)}` });
          task.items.push(...((result.structuredContent as { items?: string[] } | undefined)?.items ?? []));
        } else {
          const answer = await server.gql(ADD_ITEMS, { input: { taskId: task.id, items: [`Added ${(added += 1)}`] } });
          task.items.push(...(answer.data?.addItems?.items ?? []).map((item: { id: string }) => item.id));
        }
      }],
      ['an item deleted', async (viaMcp) => {
        const task = random.pick(tasks);
        if (task.items.length < 2) return;
        const item = task.items.splice(random.below(task.items.length), 1)[0];
        if (viaMcp) return mcp.call('task_item', { uid: task.id, item, delete: true });
        return server.gql(DELETE_ITEM, { id: item });
      }],
      ['a task moved', async (viaMcp) => {
        const task = random.pick(tasks);
        const domain = random.pick(DOMAINS);
        if (viaMcp) return mcp.call('edit_memory', { uid: task.id, domain });
        return server.gql(EDIT_TASK, { input: { id: task.id, domain } });
      }],
      ['a note moved', async (viaMcp) => {
        const note = random.pick(notes);
        const domain = random.pick(DOMAINS);
        if (viaMcp) return mcp.call('edit_memory', { uid: note, domain });
        return server.gql(EDIT_NOTE, { input: { id: note, domain } });
      }],
      ['a memory archived', async () => server.gql('mutation($id: ID!) { archiveMemory(id: $id) { id } }', { id: random.pick([...notes, ...tasks.map((task) => task.id)]) })],
      ['a plan written', async () => writeTodos(server, session, [['Plan step', random.pick(['PENDING', 'IN_PROGRESS', 'DONE'])]])],
    ];
    for (let step = 1; step <= 90; step += 1) {
      const [name, write] = random.pick(writes);
      await write(random.below(2) === 0);
      if (step % 15 === 0) await expectCountsMatch(`step ${step} (${name})`);
    }
    // The sequence reached every kind of count: some open and some settled tasks, some archived notes.
    const totals = Object.values(await kept((sql) => server.app.services.db.reader.query(sql)));
    const sum = (pick: (own: Counts) => number) => totals.reduce((total, own) => total + pick(own), 0);
    expect(sum((own) => own.openTasks)).toBeGreaterThan(0);
    expect(sum((own) => own.tasks - own.openTasks)).toBeGreaterThan(0);
    expect(sum((own) => own.notes - own.activeNotes)).toBeGreaterThan(0);
  });

  it('equal a recount after concurrent writes in one domain', async () => {
    await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2
      ? server.gql(CREATE_NOTE, { input: { title: `Parallel ${i}`, body: 'Raced.', domain: 'kb/race' } })
      : mcp.call('task', { title: `Parallel ${i}`, goal: 'Raced.', items: 'One', domain: 'kb/race' }))));
    await expectCountsMatch('concurrent writes');
  });
});

describe('a database written before the kept counts existed', () => {
  it('gets every domain\'s counts when it is migrated', async () => {
    const { databaseUrl } = await testDatabase();
    const old = new DataSource({ ...dataSourceOptions(databaseUrl, 'writer'), migrations: MIGRATIONS.slice(0, MIGRATIONS.indexOf(DomainCounts1764570000000)) } as never);
    await old.initialize();
    await old.runMigrations();
    const now = new Date().toISOString();
    // Tasks carry their item counts, so the states re-derived on open are the ones written here.
    const insert = (id: number, kind: string, domain: string | null, state: 'OPEN' | 'COMPLETED' | null, archived: boolean) =>
      old.query(
        `INSERT INTO "memories" ("id", "kind", "title", "domain", "taskState", "pendingItems", "doneItems", "archived", "createdAt", "updatedAt")
         VALUES (${id}, '${kind}', 'Old ${id}', ${domain === null ? 'NULL' : `'${domain}'`}, ${state === null ? 'NULL' : `'${state}'`},
           ${state === 'OPEN' ? 1 : 0}, ${state === 'COMPLETED' ? 1 : 0}, ${archived ? 'TRUE' : 'FALSE'}, '${now}', '${now}')`,
      );
    await insert(1, 'TASK', 'old/db', 'OPEN', false);
    await insert(2, 'TASK', 'old/db', 'COMPLETED', false);
    await insert(3, 'NOTE', 'old/db', null, true);
    await insert(4, 'NOTE', 'old/db/deep', null, false);
    await insert(5, 'TASK', null, 'OPEN', false);
    await old.destroy();

    const db = await Database.open(databaseUrl);
    try {
      const query: Query = (sql) => db.reader.query(sql);
      expect(await kept(query)).toEqual({
        'old/db': { tasks: 2, openTasks: 1, notes: 1, activeNotes: 0 },
        'old/db/deep': { tasks: 0, openTasks: 0, notes: 1, activeNotes: 1 },
      });
      expect(await kept(query)).toEqual(await recounted(query));
    } finally {
      await db.close();
    }
  });
});
