/**
 * A list's bound holds before its rows are loaded: a small read of
 * Item.related cannot make the server read what its answer may not carry.
 * The statement the read sent is run again on the database to count what it
 * brought back (the harness's onReadQuery hook gives its text), and the
 * server's memory (this process hosts it) is sampled while it answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.js';
import { ADD_ITEMS } from './fixtures/documents.js';
import { createTask, type Item } from './fixtures/tasks.js';

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

/** Runs the related statement of `statements` again and counts its rows and the bodies it carried. */
async function whatRelatedRead(statements: { sql: string; parameters: readonly unknown[] }[]) {
  const related = statements.find((statement) => statement.sql.includes('item_links'));
  expect(related, 'the read sent a statement for Item.related').toBeDefined();
  // A text of its own (a trailing space): the statement the read prepared answers arrays, and this reads columns by name.
  const rows: Record<string, unknown>[] = await server.app.services.db.reader.query(`${related!.sql} `, [...related!.parameters]);
  const bodies = rows.filter((row) => typeof row.m_body === 'string');
  return { rows: rows.length, bodies: bodies.length, bodyChars: bodies.reduce((sum, row) => sum + String(row.m_body).length, 0) };
}

const MB = 1024 * 1024;

describe('Item.related over HTTP', () => {
  it('reads each linked note once: 200 items × the same 100 notes of 20,000 characters is TOO_LARGE, 100 bodies read, memory bounded', async () => {
    const linked = await notes(100, 20_000, 'shared');
    const { taskId } = await linkedTask(200, () => linked, 'shared');
    // The finding's read: about 105 bytes, 20,000 links to 2 MB of distinct text, 400 MB if every link carried its body.
    const query = `{ task(id: "${taskId}") { items(first: 200) { nodes { related { ... on Note { body } } } } } }`;
    const { answer, statements, grew } = await measured(query);
    expect(answer.data ?? null).toBeNull();
    expect(answer.errors).toHaveLength(1);
    expect(answer.errors![0].extensions?.code).toBe('TOO_LARGE');
    // One statement per kind of row: the task, its items, their links with the notes.
    expect(statements.length).toBeLessThanOrEqual(4);
    const read = await whatRelatedRead(statements);
    expect(read.rows).toBe(20_000);
    expect(read.bodies).toBe(100);
    expect(grew).toBeLessThan(150 * MB);
  }, 300_000);

  it('reads no text when the distinct linked notes hold more than an answer may carry: only their lengths', async () => {
    // 1,700 distinct notes of 20,000 characters (34 MB of text), 100 on each of 17 items: past the 32 MB budget.
    const linked = await notes(1_700, 20_000, 'distinct');
    const { taskId } = await linkedTask(17, (index) => linked.slice(index * 100, index * 100 + 100), 'distinct');
    const query = `{ task(id: "${taskId}") { items(first: 200) { nodes { related { ... on Note { body } } } } } }`;
    const { answer, statements, grew } = await measured(query);
    expect(answer.data ?? null).toBeNull();
    expect(answer.errors?.[0].extensions?.code).toBe('TOO_LARGE');
    expect(answer.errors?.[0].message).toContain('would be over 32 MB');
    const read = await whatRelatedRead(statements);
    expect(read.rows).toBe(1_700);
    // Text stops where the budget would: the bodies read hold at most 32 MB, not the 34 MB linked.
    expect(read.bodyChars).toBeLessThanOrEqual(32 * MB);
    expect(read.bodies).toBeLessThan(1_700);
    expect(grew).toBeLessThan(150 * MB);

    // A page the budget can carry is answered whole, in link order.
    const small = await server.ok(`{ task(id: "${taskId}") { items(first: 2) { nodes { related { id } } } } }`);
    expect(small.task.items.nodes.map((item: { related: { id: string }[] }) => item.related.map((note) => note.id))).toEqual([linked.slice(0, 100), linked.slice(100, 200)]);
  }, 600_000);
});
