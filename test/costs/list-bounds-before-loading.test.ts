/**
 * A list's bound holds before its rows are loaded: a small read of
 * Item.related cannot make the server read what its answer may not carry.
 * The statement the read sent is run again on the database to count what it
 * brought back (the harness's onReadQuery hook gives its text), and the
 * server's memory (this process hosts it) is sampled while it answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { ADD_ITEMS } from '../fixtures/documents.js';
import { createTask, type Item } from '../fixtures/tasks.js';

let server: TestServer;
let reads: { sql: string; parameters: readonly unknown[] }[] = [];
beforeAll(async () => { server = await startTestServer({ onReadQuery: (sql, parameters) => reads.push({ sql, parameters: parameters ?? [] }) }); });
afterAll(async () => { await server?.close(); });

/** Notes of `chars` characters each, made 40 to a request (under the 1 MB body limit). */
async function notes(count: number, chars: number, tag: string): Promise<string[]> {
  const ids: string[] = [];
  for (let start = 0; start < count; start += 40) {
    const batch = Array.from({ length: Math.min(40, count - start) }, (_, i) => {
      const body = `${start + i} `.padEnd(chars, 'x');
      return `n${i}: createNote(input: { title: "${tag} ${start + i}", body: "${body}", domain: "bounds/${tag}" }) { id }`;
    });
    ids.push(...Object.values(await server.ok(`mutation { ${batch.join('\n')} }`)).map((note: any) => note.id));
  }
  return ids;
}

/** A task of `count` items; item i links the 100 notes of `linkedTo(i)`. */
async function linkedTask(count: number, linkedTo: (index: number) => string[], tag: string): Promise<{ taskId: string; items: Item[] }> {
  const labels = Array.from({ length: count }, (_, i) => `${tag} ${i + 1}`);
  const { task, items } = await createTask(server, labels.slice(0, 100), { domain: `bounds/${tag}` });
  for (let start = 100; start < count; start += 100) {
    items.push(...(await server.ok(ADD_ITEMS, { input: { taskId: task.id, items: labels.slice(start, start + 100) } })).addItems.items);
  }
  for (let start = 0; start < items.length; start += 50) {
    const batch = items.slice(start, start + 50).map((item, i) => `m${i}: updateItem(input: { id: "${item.id}", related: ${JSON.stringify(linkedTo(start + i))} }) { id }`);
    await server.ok(`mutation { ${batch.join('\n')} }`);
  }
  return { taskId: task.id, items };
}

/** Sends `query` while sampling this process's RSS: the answer, the statements it read with, and the most RSS grew meanwhile. */
async function measured(query: string) {
  reads = [];
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 10);
  try {
    const answer = await server.gql(query);
    return { answer, statements: reads, grew: Math.max(peak, process.memoryUsage().rss) - before };
  } finally {
    clearInterval(sampler);
  }
}

/** Runs the memories statement of Item.related's read again (linked-memory-reader.ts) and counts the bodies it carried. */
async function whatRelatedRead(statements: { sql: string; parameters: readonly unknown[] }[]) {
  const memories = statements.filter((statement) => statement.sql.includes('"total"'));
  expect(memories.length, 'the read sent a statement for the linked memories').toBeGreaterThan(0);
  let bodies = 0;
  for (const statement of memories) {
    // A text of its own (a trailing space): the statement the read prepared answers arrays, and this reads columns by name.
    const rows: Record<string, unknown>[] = await server.app.services.db.reader.query(`${statement.sql} `, [...statement.parameters]);
    bodies += rows.filter((row) => typeof row.m_body === 'string').length;
  }
  return { links: statements.filter((statement) => statement.sql.includes('item_links')).length, bodies };
}

const MB = 1024 * 1024;

describe('Item.related over HTTP', () => {
  let taskId: string;
  let linked: string[];
  beforeAll(async () => {
    linked = await notes(100, 20_000, 'shared');
    ({ taskId } = await linkedTask(200, () => linked, 'shared'));
  }, 300_000);

  it('refuses 200 items × the same 100 notes of 20,000 characters before reading anything: no link and no text is read', async () => {
    // The finding's read: about 105 bytes, 20,000 links to 2 MB of distinct text, 400 MB if every link carried its body.
    const query = `{ task(id: "${taskId}") { items(first: 200) { nodes { related { ... on Note { body } } } } } }`;
    const { answer, statements, grew } = await measured(query);
    expect(answer.data ?? null).toBeNull();
    expect(answer.errors).toHaveLength(1);
    expect(answer.errors![0].extensions?.code).toBe('TOO_LARGE');
    expect(answer.errors![0].message).toContain('over the limit of 32 MB one query may plan');
    expect(statements).toEqual([]);
    expect(grew).toBeLessThan(150 * MB);
  }, 120_000);

  it('reads each linked note once, in statements of bounded size, when the plan fits: 200 items × their first 2 links', async () => {
    const query = `{ task(id: "${taskId}") { items(first: 200) { nodes { related(first: 2) { id ... on Note { body } } } } } }`;
    const { answer, statements, grew } = await measured(query);
    expect(answer.errors).toBeUndefined();
    const items = answer.data!.task.items.nodes as { related: { id: string; body: string }[] }[];
    expect(items).toHaveLength(200);
    expect(items.every((item) => item.related.map((note) => note.id).join() === linked.slice(0, 2).join())).toBe(true);
    expect(items[0].related[0].body).toHaveLength(20_000);
    const read = await whatRelatedRead(statements);
    // 20,000 links in pages of 5,000, then the 100 distinct notes once each.
    expect(read.links).toBe(5);
    expect(read.bodies).toBe(100);
    expect(grew).toBeLessThan(150 * MB);
  }, 120_000);

  it('answers a page within the plan whole, in link order', async () => {
    const small = await server.ok(`{ task(id: "${taskId}") { items(first: 2) { nodes { related { id } } } } }`);
    expect(small.task.items.nodes.map((item: { related: { id: string }[] }) => item.related.map((note) => note.id))).toEqual([linked, linked]);
  });
});
