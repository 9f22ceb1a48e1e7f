import { describe, expect, it } from 'vitest';
import { readSession } from '../fixtures/sessions.js';
import { connectMcp, serverWithMcp, refusedByTool } from '../fixtures/mcp.js';

/** The knowledge-base set: tasks that outlive the chat, through the SDK's Client over its in-memory transport. */
const { server, mcp } = serverWithMcp({ tools: 'knowledge-base' });

const ITEMS = 'Key charge.succeeded by event id\nCover refunds and disputes\nRemove the charge-id lookup';

async function opened(domain = 'acme/checkout/billing') {
  const { data } = await mcp.ok('task', { title: 'Move billing webhooks to the idempotent handler', goal: 'Every billing webhook is deduplicated by event id.', items: ITEMS, domain });
  return { uid: data.uid as string, items: data.items as string[] };
}

describe('task, task_item, task_add', () => {
  it('opens a task with one item per line and works it to COMPLETED, reopening it with task_add', async () => {
    const { uid, items } = await opened();
    expect(items).toHaveLength(3);
    expect(items.every((id) => /^\d+$/.test(id))).toBe(true);
    const [charge, refunds, lookup] = items as [string, string, string];
    const { uid: note } = (await mcp.ok('remember', { title: 'Provider retries for 72h', body: 'Events can arrive three days late.', domain: 'acme/checkout/billing' })).data;
    const done = await mcp.ok('task_item', { uid, item: charge, state: 'done', comment: 'Handler keys off the event id.', related: note });
    expect(done.data.item).toMatchObject({ id: charge, number: 1, state: 'done', note: 'Handler keys off the event id.' });
    await mcp.ok('task_item', { uid, item: refunds, state: 'doing' });
    expect((await mcp.ok('get_memory', { uid })).data).toMatchObject({ state: 'open', status: 'active', progress: { done: 1, total: 3, inProgress: 1 } });
    await mcp.ok('task_item', { uid, item: refunds, state: 'done' });
    const renamed = await mcp.ok('task_item', { uid, item: lookup, text: 'Drop the charge-id lookup' });
    expect(renamed.data.item).toMatchObject({ id: lookup, text: 'Drop the charge-id lookup', state: 'todo' });
    const closed = await mcp.ok('task_item', { uid, item: lookup, state: 'dropped', comment: 'Kept for the legacy client.' });
    expect(closed.data.task).toMatchObject({ state: 'completed', status: 'archived' });
    const listed = await mcp.ok('list_by_domain', { domain: 'acme/checkout', type: 'task', status: 'archived' });
    expect(listed.data.memories.map((memory: { uid: string }) => memory.uid)).toContain(uid);
    const added = await mcp.ok('task_add', { uid, items: 'Document the replay queue', after: charge });
    expect(added.data.items).toHaveLength(1);
    expect(added.data.task).toMatchObject({ state: 'open', status: 'active' });
    expect(added.text).toContain('#2 [todo] Document the replay queue');
  });

  it('deletes an item alone in its call, no other id moving; refuses a delete with other changes', async () => {
    const { uid, items } = await opened();
    expect(await refusedByTool(server, mcp, 'task_item', { uid, item: items[1], delete: true, state: 'done' })).toContain('a delete stands alone');
    const deleted = await mcp.ok('task_item', { uid, item: items[1], delete: true });
    expect(deleted.data.item).toMatchObject({ id: items[1], deleted: true, number: null });
    const read = await mcp.ok('task_read', { uid, collection: 'items' });
    expect(read.data.entries.map((entry: { id: string; number: number }) => [entry.id, entry.number])).toEqual([[items[0], 1], [items[2], 2]]);
  });

  it('refuses an item of another task, a state outside the four, and bad input, recording nothing', async () => {
    const first = await opened();
    const other = await opened('acme/other');
    expect(await refusedByTool(server, mcp, 'task_item', { uid: first.uid, item: other.items[0], state: 'done' })).toContain(`is not an item of task ${first.uid}`);
    expect(await refusedByTool(server, mcp, 'task_item', { uid: first.uid, item: first.items[0], state: 'finished' })).toContain('Use todo, doing, done or dropped.');
    expect(await refusedByTool(server, mcp, 'task', { title: ' ', goal: 'g', items: 'a', domain: 'acme' })).toContain('title');
    expect(await refusedByTool(server, mcp, 'task', { title: 'T', goal: 'g', items: 'a', domain: 'Not A Domain' })).toMatch(/^Error: .*domain/i);
    expect(await refusedByTool(server, mcp, 'task_comment', { uid: first.uid, body: 'see i3' })).toContain('bare item reference');
    expect(await refusedByTool(server, mcp, 'get_memory', { uid: '999999' })).toContain('no memory has uid "999999"');
  });
});

describe('task_comment, task_note, task_read', () => {
  it('renders [[#id]] in comments and briefs, reads notes and comments back with refs, and pages items with next_offset', async () => {
    const { uid, items } = await opened();
    const [charge, refunds] = items as [string, string];
    const comment = await mcp.ok('task_comment', { uid, body: `Disputes need their own queue, like [[#${refunds}]]?` });
    expect(comment.data.text).toBe('Disputes need their own queue, like [#2 Cover refunds and disputes]?');
    await mcp.ok('task_comment', { uid, body: "Waiting on the provider's docs", item: refunds });
    const brief = await mcp.ok('task_note', {
      uid, title: 'Refunds', items: refunds, goal: 'Refunds are deduplicated.', context: `Like [[#${charge}]].`, steps: 'Key by event id.',
      pitfalls: 'Partial refunds.', done_when: 'The refund test passes.', depends_on: `${charge} (the event-id handler)`,
    });
    expect(brief.data.brief.depends_on).toBe('[#1 Key charge.succeeded by event id] (the event-id handler)');
    expect(brief.data.brief.context).toBe('Like [#1 Key charge.succeeded by event id].');
    await mcp.ok('task_note', { uid, title: 'Shared rule', body: 'Never call the provider twice.' });
    const notes = await mcp.ok('task_read', { uid, collection: 'notes', item: refunds });
    expect(notes.data.entries.map((entry: { title: string }) => entry.title)).toEqual(['Refunds']);
    expect(notes.data.refs.map((ref: { id: string }) => ref.id)).toEqual([charge]);
    expect(notes.data.next_offset).toBeUndefined();
    const comments = await mcp.ok('task_read', { uid, collection: 'comments' });
    expect(comments.data.entries).toHaveLength(1);
    expect(comments.data.refs).toEqual([{ id: refunds, number: 2, text: 'Cover refunds and disputes', deleted: false }]);
    const onItem = await mcp.ok('task_read', { uid, collection: 'comments', item: refunds });
    expect(onItem.data.entries.map((entry: { body: string }) => entry.body)).toEqual(["Waiting on the provider's docs"]);

    await mcp.ok('task_add', { uid, items: Array.from({ length: 22 }, (_, i) => `Cover event type ${i + 1}`).join('\n') });
    const first = await mcp.ok('task_read', { uid, collection: 'items' });
    expect(first.data).toMatchObject({ total: 25, next_offset: 20 });
    const last = await mcp.ok('task_read', { uid, collection: 'items', offset: 20 });
    expect(last.data.entries.map((entry: { number: number }) => entry.number)).toEqual([21, 22, 23, 24, 25]);
    expect(last.data.next_offset).toBeUndefined();
  });

  it('refuses an incomplete brief naming the missing fields, and depends_on that is not ids', async () => {
    const { uid, items } = await opened();
    const missing = await refusedByTool(server, mcp, 'task_note', { uid, title: 'Brief', items: items[0], goal: 'g', context: 'c', depends_on: 'none' });
    expect(missing).toContain('steps, pitfalls, done_when');
    expect(await refusedByTool(server, mcp, 'task_note', { uid, title: 'Brief', items: items[0], goal: 'g', context: 'c', steps: 's', pitfalls: 'p', done_when: 'd', depends_on: 'the first one' }))
      .toContain('depends_on must be "none"');
    expect(await refusedByTool(server, mcp, 'task_read', { uid, collection: 'history' })).toContain('items, notes or comments');
  });
});

describe('memories', () => {
  it('remembers, edits in place, finds by search (task notes never), and lists open tasks with progress', async () => {
    const { uid, items } = await opened('acme/search');
    await mcp.ok('task_item', { uid, item: items[0], state: 'doing' });
    await mcp.ok('task_note', { uid, title: 'Zebra brief', body: 'zebra zebra' });
    const { uid: note } = (await mcp.ok('remember', { title: 'Webhook zebra retries', body: 'Three days.', domain: 'acme/search' })).data;
    await mcp.ok('edit_memory', { uid: note, body: 'Up to three days late.' });
    expect((await mcp.ok('get_memory', { uid: note })).data).toMatchObject({ type: 'note', body: 'Up to three days late.' });
    const edited = await mcp.ok('edit_memory', { uid, goal: 'Every billing and refund webhook is deduplicated.' });
    expect(edited.data.goal).toBe('Every billing and refund webhook is deduplicated.');
    expect(await refusedByTool(server, mcp, 'edit_memory', { uid, body: 'x' })).toContain('a task has a goal, not a body');
    const found = await mcp.ok('search', { query: 'zebra', domain: 'acme/search' });
    expect(found.data.memories.map((memory: { uid: string }) => memory.uid)).toEqual([note]);
    const must = await mcp.ok('must_read', { domain: 'acme/search', type: 'task' });
    expect(must.data.tasks).toEqual([{ uid, title: 'Move billing webhooks to the idempotent handler', domain: 'acme/search', progress: '0/3', in_progress: ['Key charge.succeeded by event id'] }]);
  });
});

describe('reminders', () => {
  it('a session\'s domains named through the tools are what endTurn reminds about', async () => {
    await server.ok('mutation { updateReminderSettings(enabled: true, intervalMinutes: 30) { enabled } }');
    const agent = await connectMcp(server, { structured: true, tools: 'whole-list,knowledge-base' });
    const { data } = await agent.ok('task', { title: 'Remind me', goal: 'Stay open.', items: 'First\nSecond', domain: 'acme/remind' });
    await agent.ok('must_read', { domain: 'acme/elsewhere' });
    const sessionId = (await agent.sessionId())!;
    expect((await readSession(server, sessionId)).domains).toEqual(['acme/elsewhere', 'acme/remind']);
    const { endTurn } = await server.ok('mutation { endTurn { text domains tasks { id } } }', {}, { session: sessionId });
    expect(endTurn.domains).toEqual(['acme/elsewhere', 'acme/remind']);
    expect(endTurn.tasks.map((task: { id: string }) => task.id)).toContain(data.uid);
    await agent.close();
  });
});
