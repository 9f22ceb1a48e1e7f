/**
 * Issue 42, findings 2 and 3, through the SDK's own client over Streamable
 * HTTP: answers stay small however much was written (a step-ops update
 * answers with its step; view and must_read page by size and say what is
 * left), and task_next tells "wait" from "all done" and can hold a call
 * until another session releases an item.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANSWERS_WITHIN_MS, startTestServer, type TestServer } from '../harness.js';
import { freshDomain } from '../fixtures/knowledge.js';
import { textOf } from '../fixtures/mcp.js';
import { startBuiltServers } from '../built-server.js';

let server: TestServer;
const clients: Client[] = [];
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await server?.close();
});

/** An HTTP answer as a client hands it over: its text, its structured content, and its size on the wire. */
interface Answer { text: string; data: any; bytes: number }

async function agent(tools: string, structured = false, origin = new URL(server.url).origin) {
  const url = new URL(`/mcp?tools=${tools}${structured ? '&structured=1' : ''}`, origin);
  const client = new Client({ name: 'issue-42', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url));
  clients.push(client);
  const ok = async (name: string, args: Record<string, unknown> = {}): Promise<Answer> => {
    const result = (await client.callTool({ name, arguments: args }, undefined, { timeout: 90_000 })) as CallToolResult;
    const text = textOf(result);
    if (result.isError) throw new Error(`${name} refused: ${text}`);
    return { text, data: result.structuredContent, bytes: Buffer.byteLength(JSON.stringify(result)) };
  };
  return { ok };
}

const KB = 1024;
const long = (n: number, seed: string) => `${seed} `.repeat(Math.ceil(n / (seed.length + 1))).slice(0, n);

describe('step-ops answers do not grow with what was written', () => {
  it('updates answer under 4 KB with 40 steps of 600-character validations, and view still shows every validation', async () => {
    const mcp = await agent('step-ops');
    await mcp.ok('todo', { op: 'set', tasks: Array.from({ length: 40 }, (_, i) => `Step number ${i + 1}`) });
    let total = 0;
    for (let index = 1; index <= 40; index += 1) {
      const update = await mcp.ok('todo', { op: 'update', index, status: 'done', validation: long(600, `checked-${index}`) });
      expect(update.bytes).toBeLessThan(4 * KB);
      expect(update.text).toContain(`${index}. [done] Step number ${index} — validation: checked-${index}`);
      expect(update.text).toMatch(new RegExp(`Status: ${index}/40 · `));
      total += update.bytes;
    }
    // The old answers rendered the whole plan each time: 604 KB over these 40.
    expect(total).toBeLessThan(100 * KB);
    const view = await mcp.ok('todo', { op: 'view' });
    for (let index = 1; index <= 40; index += 1) expect(view.text).toContain(`${index}. [done] Step number ${index} — validation: checked-${index}`);
  });

  it('at the preset limits every answer stays under 100 KB, and view pages through every step, saying how to read the rest', async () => {
    const mcp = await agent('step-ops', true);
    const set = await mcp.ok('todo', { op: 'set', tasks: Array.from({ length: 200 }, (_, i) => long(500, `step-${i + 1}`)) });
    expect(set.bytes).toBeLessThan(100 * KB);
    expect(set.text).toMatch(/more: \{"op": "view", "index": \d+\}/);
    for (let index = 1; index <= 20; index += 1) {
      const update = await mcp.ok('todo', { op: 'update', index, status: 'done', validation: long(5_000, `verified-${index}`) });
      expect(update.bytes).toBeLessThan(100 * KB);
    }
    const seen: number[] = [];
    let from = 1;
    for (let pages = 0; from <= 200; pages += 1) {
      expect(pages).toBeLessThan(50);
      const page = await mcp.ok('todo', { op: 'view', index: from });
      expect(page.bytes).toBeLessThan(100 * KB);
      seen.push(...page.data.steps.map((step: { index: number }) => step.index));
      if (page.data.more === 0) break;
      from = Number(/"index": (\d+)\}\)$/.exec(page.text)![1]);
    }
    expect(seen).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
  });

  it('plan-and-finish at its limits (20 tasks, 5,000-character notes) answers under 100 KB every time', async () => {
    const mcp = await agent('plan-and-finish');
    const planned = await mcp.ok('plan_tasks', { tasks: Array.from({ length: 20 }, (_, i) => long(160, `task-${i + 1}`)) });
    expect(planned.bytes).toBeLessThan(100 * KB);
    for (let id = 1; id <= 20; id += 1) {
      const update = await mcp.ok('update_task', { task_id: id, status: 'done', note: long(5_000, `noted-${id}`) });
      expect(update.bytes).toBeLessThan(100 * KB);
    }
    expect((await mcp.ok('finish')).bytes).toBeLessThan(100 * KB);
  });
});

describe('must_read pages', () => {
  it('over 200+ open tasks answers a page under 100 KB with "N more" and the offset of the next, to the end', async () => {
    const mcp = await agent('knowledge-base');
    const domain = freshDomain();
    for (let i = 0; i < 205; i += 1) {
      await mcp.ok('task', { title: `Open task ${i} ${long(120, 'title')}`, goal: 'Stays open.', items: `First of ${i}\nSecond of ${i}`, domain });
    }
    const first = await mcp.ok('must_read', { domain });
    expect(first.bytes).toBeLessThan(100 * KB);
    expect(first.text).toMatch(/\n150 more: must_read with offset 50\./);
    const uids = new Set<string>();
    let offset: number | null = 0;
    let last = first;
    while (offset !== null) {
      last = await mcp.ok('must_read', { domain, offset });
      expect(last.bytes).toBeLessThan(100 * KB);
      for (const line of last.text.split('\n')) if (/^\d+ Open task /.test(line)) uids.add(line.split(' ')[0]!);
      const more = /(\d+) more: must_read with offset (\d+)\./.exec(last.text);
      offset = more ? Number(more[2]) : null;
    }
    // must_read lists the 200 most recently updated, and says so at that cap.
    expect(uids.size).toBe(200);
    expect(last.text).toContain('No more after these. (must_read lists the 200 most recently updated');
  }, 60_000);
});

describe('task_next', () => {
  it('answers wait (with the counts and seconds to the next lease end) and all done distinctly', async () => {
    const alice = await agent('knowledge-base', true);
    const bob = await agent('knowledge-base', true);
    const domain = freshDomain();
    const { data } = await alice.ok('task', { title: 'Queue', goal: 'Work shared by agents.', items: 'One\nTwo', domain });
    const [one, two] = data.items as [string, string];
    expect((await alice.ok('task_next', { domain, ttl_seconds: 120 })).data.item.id).toBe(one);
    expect((await bob.ok('task_next', { domain, ttl_seconds: 60 })).data.item.id).toBe(two);

    const wait = await alice.ok('task_next', { domain });
    expect(wait.data.outcome).toBe('wait');
    expect(wait.data.queue).toMatchObject({ claimed: 2, waiting: 0, stuck: 0 });
    expect(wait.data.queue.next_lease_ends_in).toBeGreaterThan(50);
    expect(wait.data.queue.next_lease_ends_in).toBeLessThanOrEqual(60);
    expect(wait.text).toMatch(/^Nothing is ready in .* yet; wait: 2 items are claimed \(the next claim ends in \d+ s\)\. Call task_next again with wait_seconds/);

    await alice.ok('task_item', { uid: data.uid, item: one, state: 'done' });
    await bob.ok('task_item', { uid: data.uid, item: two, state: 'done' });
    const done = await alice.ok('task_next', { domain });
    expect(done.data.outcome).toBe('all_done');
    expect(done.text).toMatch(/^All done in .*: every item there is settled/);
    expect(done.text).not.toContain('wait');
  });

  it('with wait_seconds, returns the item within 2 s of its release by another session (GraphQL releaseClaim)', async () => {
    const alice = await agent('knowledge-base', true);
    const bob = await agent('knowledge-base', true);
    const domain = freshDomain();
    const { data } = await alice.ok('task', { title: 'Queue', goal: 'Work shared by agents.', items: 'Only one', domain });
    const held = await alice.ok('task_next', { domain, ttl_seconds: 600 });
    const [item] = data.items as [string];
    expect(held.data.item.id).toBe(item);

    const started = Date.now();
    const waiting = bob.ok('task_next', { domain, wait_seconds: 30 }).then((answer) => ({ answer, at: Date.now() }));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const released = await server.ok('mutation($id: ID!) { releaseClaim(id: $id) { id } }', { id: item }, { session: held.data.sessionId });
    expect(released.releaseClaim.id).toBe(item);
    const releasedAt = Date.now();
    const { answer, at } = await waiting;
    expect(answer.data.outcome).toBe('claimed');
    expect(answer.data.item.id).toBe(item);
    expect(answer.text).toMatch(/^Claimed item /);
    expect(at - releasedAt).toBeLessThan(ANSWERS_WITHIN_MS); // woken by the release, not by the 30 s timeout
    expect(at - started).toBeGreaterThanOrEqual(1_000);
  });

  it('with wait_seconds and nothing released, answers wait when the time is up', async () => {
    const alice = await agent('knowledge-base', true);
    const bob = await agent('knowledge-base', true);
    const domain = freshDomain();
    await alice.ok('task', { title: 'Queue', goal: 'Work shared by agents.', items: 'Only one', domain });
    await alice.ok('task_next', { domain });
    const started = Date.now();
    const answer = await bob.ok('task_next', { domain, wait_seconds: 1 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(600);
    expect(answer.data.outcome).toBe('wait');
    expect(answer.text).toMatch(/yet \(waited \d+ s\); wait: 1 item is claimed/);
  });
});

const onPostgres = Boolean(process.env.TEST_POSTGRES_URL);
// Several servers share one database only on PostgreSQL (a SQLite file has one server process).
if (onPostgres) {
  describe('task_next on two servers', () => {
    it('with wait_seconds on one server, returns the item within 2 s of its release through the other', async () => {
      const other = await startBuiltServers(server.databaseUrl, 1, 'taskbase-wait-');
      try {
        const alice = await agent('knowledge-base', true);
        const bob = await agent('knowledge-base', true, other.servers[0]!.base);
        const domain = freshDomain();
        const { data } = await alice.ok('task', { title: 'Queue', goal: 'Work shared by agents on two servers.', items: 'Only one', domain });
        const held = await alice.ok('task_next', { domain, ttl_seconds: 600 });
        const [item] = data.items as [string];

        const waiting = bob.ok('task_next', { domain, wait_seconds: 30 }).then((answer) => ({ answer, at: Date.now() }));
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        await server.ok('mutation($id: ID!) { releaseClaim(id: $id) { id } }', { id: item }, { session: held.data.sessionId });
        const releasedAt = Date.now();
        const { answer, at } = await waiting;
        expect(answer.data.outcome).toBe('claimed');
        expect(answer.data.item.id).toBe(item);
        console.log(`task_next woken on the other server ${at - releasedAt} ms after the release`);
        expect(at - releasedAt).toBeLessThan(ANSWERS_WITHIN_MS); // heard through the change log's NOTIFY, not the 30 s timeout
      } finally {
        await other.stop();
      }
    }, 120_000);
  });
}
