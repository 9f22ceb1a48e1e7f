/**
 * task_item's `after`: an agent declares that an item waits for others in one
 * small call, without a brief. The item is not handed out (task_next) nor
 * listed ready (task_ready) until what it waits for is done or dropped;
 * task_read says "waits for #N label" while it waits and nothing once it is
 * settled; a cycle, the item itself or another task's item is refused with
 * nothing recorded; the change is in the task's history.
 */
import { describe, expect, it } from 'vitest';
import { freshDomain } from '../fixtures/knowledge.js';
import { readHistory } from '../fixtures/history.js';
import { startSession, writeTodos } from '../fixtures/sessions.js';
import { serverWithMcp, refusedByTool } from '../fixtures/mcp.js';

const { server, mcp: agent } = serverWithMcp({ tools: 'knowledge-base' });

async function backlog(domain: string) {
  const { data } = await agent.ok('task', {
    title: 'Parser', goal: 'The config parser accepts comments.', domain,
    items: 'Fix the parser\nDocument the syntax\nShip the release',
  });
  const [parser, docs, ship] = data.items as [string, string, string];
  return { uid: data.uid as string, parser, docs, ship };
}

describe('task_item after', () => {
  it('holds an item back from task_ready and task_next until what it waits for is done; task_read says what it waits for until then', async () => {
    const domain = freshDomain('after');
    const { uid, parser, docs, ship } = await backlog(domain);

    const declared = await agent.ok('task_item', { uid, item: ship, after: [parser, docs] });
    expect(declared.text).toContain('Waits for #1 Fix the parser, #2 Document the syntax: not ready until each is done or dropped.');

    const ready = await agent.ok('task_ready', { domain });
    expect(ready.text).toContain(`item ${parser} "Fix the parser"`);
    expect(ready.text).not.toContain(`item ${ship} `);

    const read = await agent.ok('task_read', { uid, collection: 'items' });
    expect(read.data.entries[2]).toMatchObject({ id: ship, blocked_by: [parser, docs] });
    expect(read.text).toContain('[waits for #1 Fix the parser, #2 Document the syntax]');

    // Two claims take the two free items; the third waits, so the queue says wait, not all done.
    expect((await agent.ok('task_next', { domain })).data.item).toMatchObject({ id: parser });
    expect((await agent.ok('task_next', { domain })).data.item).toMatchObject({ id: docs });
    const waiting = await agent.ok('task_next', { domain });
    expect(waiting.data).toMatchObject({ outcome: 'wait', item: null, queue: { claimed: 2, waiting: 1 } });

    await agent.ok('task_item', { uid, item: parser, state: 'done' });
    const half = await agent.ok('task_read', { uid, collection: 'items' });
    expect(half.text).toContain('[waits for #2 Document the syntax]');
    expect(half.text).not.toContain('waits for #1');

    await agent.ok('task_item', { uid, item: docs, state: 'dropped', comment: 'The README covers it.' });
    const settled = await agent.ok('task_read', { uid, collection: 'items' });
    expect(settled.text).not.toContain('waits for');
    expect((await agent.ok('task_next', { domain })).data.item).toMatchObject({ id: ship });
  });

  it('replaces what an earlier after said, clears it with [], and records each change in the history once', async () => {
    const domain = freshDomain('after');
    const { uid, parser, docs, ship } = await backlog(domain);
    await agent.ok('task_item', { uid, item: ship, after: [parser] });
    // The same waits again change nothing and record nothing.
    await agent.ok('task_item', { uid, item: ship, after: [parser] });
    await agent.ok('task_item', { uid, item: ship, after: [docs] });
    expect((await agent.ok('task_read', { uid, collection: 'items' })).data.entries[2]).toMatchObject({ blocked_by: [docs] });
    const cleared = await agent.ok('task_item', { uid, item: ship, after: [] });
    expect(cleared.text).toContain('It waits for nothing by after now');
    expect((await agent.ok('task_ready', { domain })).text).toContain(`item ${ship} "Ship the release"`);
    const actions = (await readHistory(server, uid, 50)).map((event) => event.action);
    expect(actions.filter((action) => action === 'ITEM_WAITS')).toHaveLength(3);
  });

  it('refuses a cycle naming it, the item itself, another task\'s item and a deleted one, recording nothing', async () => {
    const domain = freshDomain('after');
    const { uid, parser, docs, ship } = await backlog(domain);
    const other = await backlog(domain);
    await agent.ok('task_item', { uid, item: docs, after: [parser] });
    await agent.ok('task_item', { uid, item: ship, after: [docs] });

    const cycle = await refusedByTool(server, agent, 'task_item', { uid, item: parser, after: [ship] });
    expect(cycle).toContain(`after would make a cycle: item ${parser} "Fix the parser" waits for ${ship} "Ship the release" waits for ${docs} "Document the syntax" waits for ${parser} "Fix the parser"`);
    expect(cycle).toContain('nothing was recorded');
    // Nothing of the refused call stuck: neither its state nor its waits.
    await refusedByTool(server, agent, 'task_item', { uid, item: parser, state: 'doing', after: [ship] });
    expect((await agent.ok('task_read', { uid, collection: 'items' })).data.entries[0]).toMatchObject({ id: parser, state: 'todo', blocked_by: [] });

    expect(await refusedByTool(server, agent, 'task_item', { uid, item: parser, after: [parser] })).toContain(`after names item ${parser} itself`);
    expect(await refusedByTool(server, agent, 'task_item', { uid, item: parser, after: [other.parser] })).toContain(`after names "${other.parser}", which is not an item of this task`);
    await agent.ok('task_item', { uid: other.uid, item: other.docs, delete: true });
    expect(await refusedByTool(server, agent, 'task_item', { uid: other.uid, item: other.ship, after: [other.docs] })).toContain(`after names item ${other.docs}, which is deleted`);
    const many = Array.from({ length: 21 }, (_, index) => String(1_000_000 + index));
    expect(await refusedByTool(server, agent, 'task_item', { uid, item: parser, after: many })).toContain('after names 21 items; it names at most 20');
    // A session's plan is not a task here, whatever its step's id: as before the write, no task has that uid.
    const plan = (await writeTodos(server, await startSession(server), [['Plan step', 'PENDING']])).plan!;
    const step = plan.items.nodes[0]!.id;
    expect(await refusedByTool(server, agent, 'task_item', { uid: plan.id, item: step, state: 'done' })).toBe(`Error: no task has uid "${plan.id}". Use the uid task returned, or find it with search or must_read.`);
    expect(await refusedByTool(server, agent, 'task_item', { uid: plan.id, item: step, delete: true })).toBe(`Error: no task has uid "${plan.id}". Use the uid task returned, or find it with search or must_read.`);
    // A delete stands alone, after included.
    expect(await refusedByTool(server, agent, 'task_item', { uid, item: parser, delete: true, after: [docs] })).toContain('a delete stands alone');
  });
});
