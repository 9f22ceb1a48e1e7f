/**
 * Item.related at its largest leaves the server answering: 16 reads of 200
 * items × 100 linked notes (20,000 characters each) at once, and /healthz,
 * asked all the while, keeps answering (ANSWERS_WITHIN_MS); a read whose
 * linked text could pass what one query may plan is refused before anything
 * is read, saying the limit and how to narrow it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANSWERS_WITHIN_MS, startTestServer, type TestServer } from '../harness.js';
import { ADD_ITEMS } from '../fixtures/documents.js';
import { createTask } from '../fixtures/tasks.js';

let server: TestServer;
let reads: string[] = [];
let taskId: string;
beforeAll(async () => {
  server = await startTestServer({ onReadQuery: (sql) => reads.push(sql) });
  const notes: string[] = [];
  for (let start = 0; start < 100; start += 25) {
    const batch = Array.from({ length: 25 }, (_, i) =>
      `n${i}: createNote(input: { title: "Why ${start + i}", body: "${`${start + i} `.padEnd(20_000, 'x')}", domain: "heavy/related" }) { id }`);
    notes.push(...Object.values(await server.ok(`mutation { ${batch.join('\n')} }`)).map((note: any) => note.id));
  }
  const labels = Array.from({ length: 200 }, (_, i) => `Step ${i + 1}`);
  const { task, items } = await createTask(server, labels.slice(0, 100), { domain: 'heavy/related' });
  items.push(...(await server.ok(ADD_ITEMS, { input: { taskId: task.id, items: labels.slice(100) } })).addItems.items);
  for (let start = 0; start < items.length; start += 50) {
    const batch = items.slice(start, start + 50).map((item, i) => `m${i}: updateItem(input: { id: "${item.id}", related: ${JSON.stringify(notes)} }) { id }`);
    await server.ok(`mutation { ${batch.join('\n')} }`);
  }
  taskId = task.id;
}, 300_000);
afterAll(async () => { await server?.close(); });

const healthz = () => server.url.replace(/\/graphql$/, '/healthz');

/** Sends `count` copies of `query` at once while asking /healthz over and over: each answer, and each /healthz latency (ms). */
async function underLoad(query: string, count: number) {
  let done = false;
  const latencies: number[] = [];
  const probing = (async () => {
    while (!done) {
      const started = performance.now();
      expect((await fetch(healthz())).status).toBe(200);
      latencies.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  const started = performance.now();
  const answers = await Promise.all(Array.from({ length: count }, () => server.gql(query)));
  const took = performance.now() - started;
  done = true;
  await probing;
  return { answers, latencies, took };
}

describe('16 reads of every link of 200 items at once', () => {
  it('are answered whole while /healthz keeps answering throughout', async () => {
    const query = `{ task(id: "${taskId}") { items(first: 200) { nodes { id related { id title } } } } }`;
    const { answers, latencies, took } = await underLoad(query, 16);
    console.log(`16 × related { id title } of 200 items: ${Math.round(took)} ms in all; /healthz max ${Math.round(Math.max(...latencies))} ms over ${latencies.length} asks`);
    for (const answer of answers) {
      expect(answer.errors, JSON.stringify(answer.errors)).toBeUndefined();
      expect(answer.data!.task.items.nodes).toHaveLength(200);
      expect(answer.data!.task.items.nodes.every((item: { related: unknown[] }) => item.related.length === 100)).toBe(true);
    }
    expect(latencies.length).toBeGreaterThan(1);
    expect(Math.max(...latencies)).toBeLessThan(ANSWERS_WITHIN_MS);
  }, 120_000);

  it('with every body are refused before anything is read (TOO_LARGE, naming the limit and how to narrow), while /healthz answers', async () => {
    reads = [];
    const query = `{ task(id: "${taskId}") { items(first: 200) { nodes { related { ... on Note { body } } } } } }`;
    const { answers, latencies } = await underLoad(query, 16);
    for (const answer of answers) {
      expect(answer.data ?? null).toBeNull();
      expect(answer.errors).toHaveLength(1);
      expect(answer.errors![0].extensions?.code).toBe('TOO_LARGE');
      expect(answer.errors![0].message).toContain('over the limit of 32 MB one query may plan');
      expect(answer.errors![0].message).toContain('related(first: 10)');
      expect(answer.errors![0].message).toContain('nothing was read');
    }
    expect(reads.filter((sql) => sql.includes('item_links') || sql.includes('"memories"'))).toEqual([]);
    expect(Math.max(...latencies)).toBeLessThan(ANSWERS_WITHIN_MS);

    // Narrowed as the refusal says, the same read is answered: 200 items, the first 2 links of each with their bodies.
    const narrowed = await server.ok(`{ task(id: "${taskId}") { items(first: 200) { nodes { related(first: 2) { ... on Note { body } } } } } }`);
    expect(narrowed.task.items.nodes.every((item: { related: { body: string }[] }) => item.related.length === 2 && item.related[0].body.length === 20_000)).toBe(true);
  }, 120_000);
});
