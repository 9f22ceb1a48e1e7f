/** The demo seed: realistic tasks in every state, and a second run adds nothing. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/db/database.js';
import { createServices } from '../../src/services/index.js';
import { seedDemo } from '../../seeds/demo.js';
import { startTestServer, testDatabase, type TestServer } from '../harness.js';

/** Every table's row count and every task's version: equal means the run recorded nothing. */
async function footprint(db: Database) {
  const counts: Record<string, number> = {};
  for (const table of ['memories', 'items', 'task_events', 'comments', 'idempotency_keys']) {
    const [row] = await db.reader.query(`SELECT count(*) AS n FROM "${table}"`);
    counts[table] = Number(row.n);
  }
  const versions = await db.reader.query(`SELECT "id", "version", "updatedAt" FROM "memories" ORDER BY "id"`);
  return { counts, versions };
}

let firstSummary: string;
let secondSummary: string;
let afterFirst: Awaited<ReturnType<typeof footprint>>;
let afterSecond: Awaited<ReturnType<typeof footprint>>;
let server: TestServer;

beforeAll(async () => {
  const { file, databaseUrl } = await testDatabase();
  const db = await Database.open(databaseUrl);
  try {
    const services = createServices(db);
    firstSummary = await seedDemo(services);
    afterFirst = await footprint(db);
    secondSummary = await seedDemo(services);
    afterSecond = await footprint(db);
  } finally {
    await db.close();
  }
  server = await startTestServer({ file });
});
afterAll(async () => { await server?.close(); });

interface SeededTask {
  id: string; title: string; domain: string; state: string; status: string; version: number; goal: string; goalText: string;
  progress: { done: number; total: number; inProgress: number };
  items: { nodes: { text: string; state: string; deleted: boolean; added: boolean; number: number | null; note: string | null }[] };
  history: { totalCount: number };
}

async function seededTasks(): Promise<SeededTask[]> {
  const rows: { id: number }[] = await server.app.services.db.reader.query(`SELECT "id" FROM "memories" WHERE "kind" = 'TASK' ORDER BY "id"`);
  const tasks: SeededTask[] = [];
  for (const { id } of rows) {
    const data = await server.ok(`query($id: ID!) { task(id: $id) {
      id title domain state status version goal goalText progress { done total inProgress }
      items(first: 200, includeDeleted: true) { nodes { text state deleted added number note } }
      history { totalCount }
    } }`, { id: String(id) });
    tasks.push(data.task);
  }
  return tasks;
}

describe('seedDemo', () => {
  it('loads a handful of tasks in three domains and says so in one line', async () => {
    const tasks = await seededTasks();
    expect(tasks.length).toBeGreaterThanOrEqual(5);
    expect(new Set(tasks.map((task) => task.domain))).toEqual(new Set(['acme/checkout/billing', 'acme/checkout/ui', 'ops/infra']));
    expect(firstSummary).not.toContain('\n');
    expect(firstSummary).toContain(`${tasks.length} created`);
  });

  it('has tasks in every state: open with work in progress, completed, cancelled', async () => {
    const tasks = await seededTasks();
    const states = new Set(tasks.map((task) => `${task.state}/${task.status}`));
    expect(states).toEqual(new Set(['OPEN/ACTIVE', 'COMPLETED/ARCHIVED', 'CANCELLED/ARCHIVED']));
    expect(tasks.some((task) => task.state === 'OPEN' && task.progress.inProgress > 0)).toBe(true);
    const itemStates = new Set(tasks.flatMap((task) => task.items.nodes.map((item) => item.state)));
    expect(itemStates).toEqual(new Set(['PENDING', 'IN_PROGRESS', 'DONE', 'DROPPED', 'BLOCKED', 'FAILED']));
  });

  it('has deleted items (number null), added items, notes on settled items, and a goal citing an item', async () => {
    const tasks = await seededTasks();
    const items = tasks.flatMap((task) => task.items.nodes);
    expect(items.some((item) => item.deleted && item.number === null)).toBe(true);
    expect(items.some((item) => item.added)).toBe(true);
    expect(items.some((item) => item.state === 'DONE' && item.note)).toBe(true);
    const citing = tasks.filter((task) => /\[\[#\d+\]\]/.test(task.goal));
    expect(citing.length).toBeGreaterThan(0);
    for (const task of citing) {
      expect(task.goalText).not.toMatch(/\[\[#/);
      expect(task.goalText).toMatch(/\[#\d+ [^\]]+\]/);
    }
    // Every recorded change has its history row.
    for (const task of tasks) expect(task.history.totalCount).toBe(task.version);
  });

  it('adds nothing the second time: same rows, same versions', () => {
    expect(afterSecond).toEqual(afterFirst);
    expect(secondSummary).toMatch(/0 created/);
  });

  it('adds nothing when run again over a server that is serving the same database', async () => {
    const before = await footprint(server.app.services.db);
    const summary = await seedDemo(server.app.services);
    expect(await footprint(server.app.services.db)).toEqual(before);
    expect(summary).toMatch(/0 created/);
  });
});
