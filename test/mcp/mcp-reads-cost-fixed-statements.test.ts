/**
 * must_read and task_read, called through the MCP SDK's client over HTTP,
 * cost a fixed few SQL statements whatever the size: 20 open tasks cost what
 * 200 cost, a task of 200 items what a task of 20 costs, and neither more
 * than GraphQL's mustRead and items page for the same answer. Counted on the
 * read connection while the call runs.
 */
import { describe, expect, it } from 'vitest';
import { ADD_COMMENT, ADD_ITEMS, ADD_TASK_NOTE, CREATE_NOTE, UPDATE_ITEM } from '../fixtures/documents.js';
import { brief } from '../fixtures/knowledge.js';
import { createTask } from '../fixtures/tasks.js';
import { serverWithMcp } from '../fixtures/mcp.js';

let statements = 0;
const { server, mcp } = serverWithMcp({ tools: 'knowledge-base', over: 'http', onReadQuery: () => { statements += 1; } });

/** The statements one call costs, with what it answered. */
async function costOf<T>(call: () => Promise<T>): Promise<{ count: number; answer: T }> {
  statements = 0;
  const answer = await call();
  return { count: statements, answer };
}

/** `count` open tasks in `domain`, each with its second item in progress. */
async function openTasks(domain: string, count: number) {
  for (let i = 0; i < count; i += 1) {
    const { items } = await createTask(server, [`Step ${i}a`, `Step ${i}b`, `Step ${i}c`], { domain });
    await server.ok(UPDATE_ITEM, { input: { id: items[1]!.id, state: 'IN_PROGRESS' } });
  }
}

/** A task of `size` items; its first 20 are each linked to a note, commented on, briefed and waiting for the last item, and the first is claimed. */
async function bigTask(size: number, domain: string) {
  const labels = Array.from({ length: size }, (_, i) => `Item ${i + 1}`);
  const { task, items } = await createTask(server, labels.slice(0, 100), { domain });
  const all = [...items];
  for (let start = 100; start < size; start += 100) {
    all.push(...(await server.ok(ADD_ITEMS, { input: { taskId: task.id, items: labels.slice(start, start + 100) } })).addItems.items);
  }
  const note = (await server.ok(CREATE_NOTE, { input: { title: `Why ${size}`, body: 'b', domain } })).createNote.id as string;
  const first = all.slice(0, 20);
  for (const item of first) {
    await server.ok(UPDATE_ITEM, { input: { id: item.id, related: [note] } });
    await server.ok(ADD_COMMENT, { input: { taskId: task.id, item: item.id, body: `On [[#${item.id}]].` } });
  }
  await server.ok(ADD_TASK_NOTE, {
    input: { taskId: task.id, title: 'Brief', items: first.map((item) => item.id), brief: brief({ dependsOn: [{ item: all.at(-1)!.id, reason: 'last' }] }) },
  });
  await mcp.ok('task_claim', { item: first[0]!.id });
  return task.id;
}

const MUST_READ = `query($domain: String!) { mustRead(domain: $domain) { id title domain progress { done total } inProgress { id text } } }`;
const ITEMS_PAGE = `query($id: ID!) { task(id: $id) {
  id title domain goalText state status progress { done total pending inProgress dropped blocked failed } inProgress { id number text state note }
  items(first: 20) { totalCount nodes {
    id number text state note deleted
    notes { totalCount } comments { totalCount } related { __typename id title kind }
    claim { claimedAt expiresAt session { id } } blockedBy { item { id } }
  } }
} }`;

/** The read every tool call makes first, for what others changed since the session's last call (tool-registry.ts steeringOf). */
const STEERING_READ = 1;

describe('MCP reads cost what GraphQL\'s cost', () => {
  it('must_read costs the same few statements for 200 open tasks as for 20, and no more than mustRead', { timeout: 300_000 }, async () => {
    await openTasks('cost/few', 20);
    await openTasks('cost/many', 200);
    // The connection's session starts with its first call: count the calls after it.
    await mcp.ok('must_read', { domain: 'cost/warm-up' });
    const few = await costOf(async () => (await mcp.ok('must_read', { domain: 'cost/few' })).data);
    const many = await costOf(async () => (await mcp.ok('must_read', { domain: 'cost/many' })).data);
    expect(few.answer.tasks).toHaveLength(20);
    // must_read answers a page (issue 42: every answer under 100 KB) and says how many are left.
    expect(many.answer.tasks).toHaveLength(50);
    expect(many.answer).toMatchObject({ more: 150, next_offset: 50 });
    expect(many.answer.tasks.every((task: { progress: string; in_progress: string[] }) => task.progress === '0/3' && task.in_progress.length === 1)).toBe(true);
    const graphql = await costOf(() => server.ok(MUST_READ, { domain: 'cost/many' }));
    expect(graphql.answer.mustRead).toHaveLength(200);
    expect(many.count).toBe(few.count);
    expect(many.count).toBeLessThanOrEqual(graphql.count + STEERING_READ);
  });

  it('task_read items costs the same few statements for a task of 200 items as for one of 30, and no more than the items page', { timeout: 300_000 }, async () => {
    const small = await bigTask(30, 'cost/small');
    const large = await bigTask(200, 'cost/large');
    const readSmall = await costOf(async () => (await mcp.ok('task_read', { uid: small, collection: 'items' })).data);
    const readLarge = await costOf(async () => (await mcp.ok('task_read', { uid: large, collection: 'items' })).data);
    for (const read of [readSmall, readLarge]) {
      expect(read.answer.entries).toHaveLength(20);
      expect(read.answer.entries.every((entry: any) => entry.links === 1 && entry.comments === 1 && entry.notes === 1 && entry.blocked_by.length === 1)).toBe(true);
      expect(read.answer.entries[0].claim).not.toBeNull();
    }
    expect(readLarge.answer.total).toBe(200);
    const graphql = await costOf(() => server.ok(ITEMS_PAGE, { id: large }));
    expect(graphql.answer.task.items.nodes).toHaveLength(20);
    expect(readLarge.count).toBe(readSmall.count);
    expect(readLarge.count).toBeLessThanOrEqual(graphql.count + STEERING_READ);
  });
});
