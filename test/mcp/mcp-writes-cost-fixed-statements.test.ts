/**
 * The knowledge-base write tools, called through the MCP SDK's client over
 * HTTP, answer from what their mutation changed: the write checks the task
 * and answers with it, so none reads the task again after it (and only
 * task_item before it), a call costs a fixed few SQL statements whatever the
 * task's size (20 items or 200), and task costs the same for a new task of
 * 100 items as for one of 20 (its items go in one statement). Counted on both connections
 * while the call runs; the reads outside the write are counted on the read
 * connection alone.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ADD_ITEMS } from '../fixtures/documents.js';
import { createTask } from '../fixtures/tasks.js';
import { serverWithMcp } from '../fixtures/mcp.js';

let all = 0;
let reads = 0;
const { server, mcp } = serverWithMcp({ tools: 'knowledge-base', over: 'http', onQuery: () => { all += 1; }, onReadQuery: () => { reads += 1; } });
beforeAll(async () => {
  // The connection's session starts with its first call: count the calls after it.
  await mcp.ok('must_read', { domain: 'cost/warm-up' });
});

interface Cost { all: number; reads: number }

/**
 * The fewest statements of two like calls: the server's own background work
 * (pruning the change log once a minute) may land inside one of them, never
 * inside both.
 */
async function costOf(calls: [() => Promise<unknown>, () => Promise<unknown>]): Promise<Cost> {
  const costs: Cost[] = [];
  for (const call of calls) {
    all = 0;
    reads = 0;
    await call();
    costs.push({ all, reads });
  }
  return { all: Math.min(...costs.map((cost) => cost.all)), reads: Math.min(...costs.map((cost) => cost.reads)) };
}

/** A task of `size` items (the first in progress), made over GraphQL. */
async function taskOf(size: number, domain: string) {
  const labels = Array.from({ length: size }, (_, i) => `Item ${i + 1}`);
  const { task, items } = await createTask(server, labels.slice(0, 100), { domain });
  const ids = items.map((item) => item.id);
  for (let start = 100; start < size; start += 100) {
    ids.push(...(await server.ok(ADD_ITEMS, { input: { taskId: task.id, items: labels.slice(start, start + 100) } })).addItems.items.map((item: { id: string }) => item.id));
  }
  return { uid: task.id as string, ids };
}

/** What each write tool costs on a task of `size` items. */
async function writesOn(size: number) {
  const { uid, ids } = await taskOf(size, `cost/writes-${size}`);
  // A new task of the same size, up to the 100 labels one call may send.
  const labels = (n: number) => Array.from({ length: Math.min(size, 100) }, (_, i) => `Made ${size} ${n} ${i}`).join('\n');
  const costs = {
    task_item: await costOf([
      () => mcp.ok('task_item', { uid, item: ids[2], state: 'done', comment: 'Finished.' }),
      () => mcp.ok('task_item', { uid, item: ids[3], state: 'done', comment: 'Finished.' }),
    ]),
    task_add: await costOf([() => mcp.ok('task_add', { uid, items: `Added ${size} a` }), () => mcp.ok('task_add', { uid, items: `Added ${size} b` })]),
    task_comment: await costOf([
      () => mcp.ok('task_comment', { uid, item: ids[4], body: `See [[#${ids[5]}]].` }),
      () => mcp.ok('task_comment', { uid, body: `And [[#${ids[6]}]].` }),
    ]),
    task_note: await costOf([
      () => mcp.ok('task_note', { uid, title: 'Whole task', body: `Cites [[#${ids[7]}]].` }),
      () => mcp.ok('task_note', { uid, title: 'Whole task again', body: `Cites [[#${ids[8]}]].` }),
    ]),
    task: await costOf([
      () => mcp.ok('task', { title: `Made ${size} a`, goal: 'g', items: labels(1), domain: `cost/made-${size}` }),
      () => mcp.ok('task', { title: `Made ${size} b`, goal: 'g', items: labels(2), domain: `cost/made-${size}` }),
    ]),
    task_claim: await costOf([
      () => mcp.ok('task_claim', { item: ids[10] }),
      () => mcp.ok('task_claim', { item: ids[11] }),
    ]),
    // Each takes the next ready item of the task's domain (it has no other task), which carries no brief.
    task_next: await costOf([
      () => mcp.ok('task_next', { domain: `cost/writes-${size}` }),
      () => mcp.ok('task_next', { domain: `cost/writes-${size}` }),
    ]),
  };
  return { uid, ids, costs };
}

describe('the knowledge-base write tools answer from their write', () => {
  it('task_item, task_add, task_comment, task_note, task_claim and task_next cost the same few statements on a task of 200 items as on one of 20, never reading the task after the write; task the same for 100 items as for 20', { timeout: 300_000 }, async () => {
    const small = await writesOn(20);
    const large = await writesOn(200);
    console.log(`statements per call (all / reads outside the write): ${JSON.stringify({ small: small.costs, large: large.costs })}`);
    for (const name of Object.keys(small.costs) as (keyof typeof small.costs)[]) {
      expect(large.costs[name], name).toEqual(small.costs[name]);
    }
    // Each call makes the one read every tool call makes first, for what others changed since its last call
    // (tool-registry.ts steeringOf). task_add, task_comment (on the task), task_note, task and task_claim read nothing
    // else: the write checks the task and answers with it. task_item reads no task before its write either, only the
    // claim its answer names; task_next reads the briefs on the item it claimed (a page of notes).
    expect(small.costs.task_item.reads).toBeLessThanOrEqual(1 + 1);
    expect(small.costs.task_add.reads).toBe(1);
    expect(small.costs.task_comment.reads).toBe(1);
    expect(small.costs.task_note.reads).toBe(1);
    expect(small.costs.task.reads).toBe(1);
    expect(small.costs.task_claim.reads).toBe(1);
    expect(small.costs.task_next.reads).toBeLessThanOrEqual(1 + 2);
    // Not a statement per item: the 20 labels go in at once.
    expect(small.costs.task.all).toBeLessThan(20);
  });

  it('answers from the write what a read of the task afterwards shows', { timeout: 120_000 }, async () => {
    const { uid, ids } = await taskOf(20, 'cost/answers');
    const changed = await mcp.ok('task_item', { uid, item: ids[1], state: 'doing', comment: `After [[#${ids[0]}]].` });
    const added = await mcp.ok('task_add', { uid, items: 'Between\nAnd after it', after: ids[1] });
    const read = await mcp.ok('get_memory', { uid });
    expect(changed.data.item).toMatchObject({ id: ids[1], number: 2, state: 'doing', note: `After [#1 Item 1].` });
    expect(changed.text).toContain(`#2 [doing] Item 2 (id ${ids[1]}) - After [#1 Item 1].`);
    expect(added.data.items).toHaveLength(2);
    expect(added.text).toContain(`#3 [todo] Between (id ${added.data.items[0]})`);
    expect(added.text).toContain(`#4 [todo] And after it (id ${added.data.items[1]})`);
    expect(added.data.task).toEqual({ ...changed.data.task, progress: { ...changed.data.task.progress, total: 22, pending: 21 } });
    expect(read.data.progress).toEqual(added.data.task.progress);
    const deleted = await mcp.ok('task_item', { uid, item: ids[0], delete: true });
    expect(deleted.data.item).toMatchObject({ id: ids[0], number: null, deleted: true });
    expect(deleted.data.task.in_progress).toEqual([expect.objectContaining({ id: ids[1], number: 1, note: `After [deleted item: Item 1].` })]);
    const commented = await mcp.ok('task_comment', { uid, body: `Still [[#${ids[0]}]] and [[#${added.data.items[0]}]].` });
    expect(commented.data.text).toBe(`Still [deleted item: Item 1] and [#2 Between].`);
    const made = await mcp.ok('task', { title: 'Made and shown', goal: 'g', items: 'One\nTwo', domain: 'cost/answers' });
    expect(made.text).toBe(`Created task ${made.data.uid} "Made and shown" in cost/answers with 2 items:\n  #1 [todo] One (id ${made.data.items[0]})\n  #2 [todo] Two (id ${made.data.items[1]})`);
  });
});
