/** Comments on tasks and items through GraphQL over HTTP. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { DELETE_ITEM, MOVE_ITEM, UPDATE_ITEM, ADD_COMMENT, ITEM_KNOWLEDGE, TASK_COMMENTS } from '../fixtures/documents.js';
import { ref } from '../fixtures/knowledge.js';
import { databaseState, refusedAndNothingRecorded } from '../fixtures/nothing-recorded.js';
import { createTask } from '../fixtures/tasks.js';

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

async function comment(input: Record<string, unknown>) {
  return (await server.ok(ADD_COMMENT, { input })).addComment;
}

async function commentsOf(id: string, args: { item?: string; includeItems?: boolean; first?: number; after?: string } = {}) {
  return (await server.ok(TASK_COMMENTS, { id, first: 200, ...args })).task.comments;
}

async function itemComments(id: string, first = 200, after?: string) {
  return (await server.ok(ITEM_KNOWLEDGE, { id, first, after })).item.comments;
}

const bodies = (page: { nodes: { body: string }[] }) => page.nodes.map((c) => c.body);

describe('addComment', () => {
  it('comments on the task: trimmed, rendered, with refs and no item', async () => {
    const { task, items } = await createTask(server, ['Key by event id', 'Cover refunds']);
    const made = await comment({ taskId: task.id, body: `  Disputes need their own queue, like [[#${items[1].id}]]?  ` });
    expect(made).toMatchObject({
      body: `Disputes need their own queue, like [[#${items[1].id}]]?`,
      bodyText: 'Disputes need their own queue, like [#2 Cover refunds]?',
      item: null,
      refs: [ref(items[1], 2)],
    });
    expect(Date.parse(made.createdAt)).not.toBeNaN();
    const read = await server.ok(`query($id: ID!) { task(id: $id) { version history(first: 10) { nodes { action } } } }`, { id: task.id });
    expect(read.task.version).toBe(task.version + 1);
    expect(read.task.history.nodes.map((e: { action: string }) => e.action)).toEqual(['TASK_CREATED', 'COMMENT_ADDED']);
  });

  it('comments on one item: the comment names the item as it reads now', async () => {
    const { task, items } = await createTask(server, ['First', 'Second']);
    const made = await comment({ taskId: task.id, item: items[1].id, body: "Waiting on the provider's docs" });
    expect(made).toMatchObject({ body: "Waiting on the provider's docs", bodyText: "Waiting on the provider's docs", item: ref(items[1], 2), refs: [] });
    await server.ok(MOVE_ITEM, { input: { id: items[1].id, after: null } });
    expect((await commentsOf(task.id, { item: items[1].id })).nodes[0].item).toEqual(ref(items[1], 1));
    await server.ok(DELETE_ITEM, { id: items[1].id });
    const afterDelete = await itemComments(items[1].id);
    expect(afterDelete).toMatchObject({ totalCount: 1, nodes: [{ body: "Waiting on the provider's docs" }] });
    expect((await commentsOf(task.id, { item: items[1].id })).nodes[0].item).toEqual(ref(items[1], null, true));
  });

  it('an idempotencyKey retry returns the same comment and records nothing', async () => {
    const { task } = await createTask(server, ['A']);
    const input = { taskId: task.id, body: 'Once only.', idempotencyKey: 'comment-once-1' };
    const first = await comment(input);
    const before = await databaseState(server);
    expect(await comment(input)).toEqual(first);
    expect((await databaseState(server)).digest).toBe(before.digest);
    expect((await commentsOf(task.id)).totalCount).toBe(1);
  });

  it('EMPTY_TEXT for a blank body (nothing recorded)', async () => {
    const { task, items } = await createTask(server, ['A']);
    await refusedAndNothingRecorded(server, 'EMPTY_TEXT', ADD_COMMENT, { input: { taskId: task.id, body: '   \n\t ' } });
    await refusedAndNothingRecorded(server, 'EMPTY_TEXT', ADD_COMMENT, { input: { taskId: task.id, item: items[0].id, body: '' } });
    await refusedAndNothingRecorded(server, 'EMPTY_TEXT', UPDATE_ITEM, { input: { id: items[0].id, state: 'DONE', comment: '  ' } });
  });

  it('NOT_FOUND for an item of another task, an unknown item or an unknown task (nothing recorded)', async () => {
    const { task } = await createTask(server, ['Mine']);
    const other = await createTask(server, ['Theirs']);
    const message = await refusedAndNothingRecorded(server, 'NOT_FOUND', ADD_COMMENT, { input: { taskId: task.id, item: other.items[0].id, body: 'Hello.' } });
    expect(message).toContain(other.items[0].id);
    await refusedAndNothingRecorded(server, 'NOT_FOUND', ADD_COMMENT, { input: { taskId: task.id, item: '99999999', body: 'Hello.' } });
    await refusedAndNothingRecorded(server, 'NOT_FOUND', ADD_COMMENT, { input: { taskId: '99999999', body: 'Hello.' } });
  });

  it('DELETED_ITEM for a deleted item, through addComment and updateItem (nothing recorded)', async () => {
    const { task, items } = await createTask(server, ['Gone', 'Here']);
    await server.ok(DELETE_ITEM, { id: items[0].id });
    await refusedAndNothingRecorded(server, 'DELETED_ITEM', ADD_COMMENT, { input: { taskId: task.id, item: items[0].id, body: 'Too late.' } });
    await refusedAndNothingRecorded(server, 'DELETED_ITEM', UPDATE_ITEM, { input: { id: items[0].id, comment: 'Too late.' } });
  });
});

describe("updateItem's comment", () => {
  it('becomes a comment on the item, and its note when the state changes', async () => {
    const { task, items } = await createTask(server, ['Key by event id', 'Other']);
    const done = (await server.ok(UPDATE_ITEM, { input: { id: items[0].id, state: 'DONE', comment: ` Keyed off [[#${items[0].id}]]'s event id. ` } })).updateItem;
    expect(done).toMatchObject({ state: 'DONE', note: `Keyed off [[#${items[0].id}]]'s event id.` });
    const onItem = await itemComments(items[0].id);
    expect(onItem).toMatchObject({
      totalCount: 1,
      refs: [ref(items[0], 1)],
      nodes: [{ body: `Keyed off [[#${items[0].id}]]'s event id.`, bodyText: "Keyed off [#1 Key by event id]'s event id." }],
    });
    const viaTask = await commentsOf(task.id, { item: items[0].id });
    expect(viaTask.nodes[0].item).toEqual(ref(items[0], 1));
    // Not a comment on the task itself.
    expect((await commentsOf(task.id)).totalCount).toBe(0);
  });

  it('without a state change is a comment, and the note stays as it was', async () => {
    const { items } = await createTask(server, ['A']);
    await server.ok(UPDATE_ITEM, { input: { id: items[0].id, state: 'BLOCKED', comment: 'Waiting on docs.' } });
    const again = (await server.ok(UPDATE_ITEM, { input: { id: items[0].id, comment: 'Pinged them again.' } })).updateItem;
    expect(again).toMatchObject({ state: 'BLOCKED', note: 'Waiting on docs.' });
    expect(bodies(await itemComments(items[0].id))).toEqual(['Waiting on docs.', 'Pinged them again.']);
  });

  it('with the state the item already has is still recorded as a comment', async () => {
    const { items } = await createTask(server, ['A']);
    await server.ok(UPDATE_ITEM, { input: { id: items[0].id, state: 'DONE', comment: 'Checked the tests.' } });
    await server.ok(UPDATE_ITEM, { input: { id: items[0].id, state: 'DONE', comment: 'Checked again.' } });
    expect(bodies(await itemComments(items[0].id))).toEqual(['Checked the tests.', 'Checked again.']);
  });
});

describe('Task.comments and Item.comments', () => {
  it("lists the task's own comments; with item only that item's; with includeItems all, oldest first", async () => {
    const { task, items } = await createTask(server, ['A', 'B']);
    await comment({ taskId: task.id, body: 'task 1' });
    await comment({ taskId: task.id, item: items[0].id, body: 'on A 1' });
    await comment({ taskId: task.id, item: items[1].id, body: 'on B 1' });
    await comment({ taskId: task.id, body: 'task 2' });
    await server.ok(UPDATE_ITEM, { input: { id: items[0].id, state: 'IN_PROGRESS', comment: 'on A 2' } });

    const own = await commentsOf(task.id);
    expect(own.totalCount).toBe(2);
    expect(bodies(own)).toEqual(['task 1', 'task 2']);
    expect(own.nodes.every((c: { item: unknown }) => c.item === null)).toBe(true);

    const onA = await commentsOf(task.id, { item: items[0].id });
    expect(onA.totalCount).toBe(2);
    expect(bodies(onA)).toEqual(['on A 1', 'on A 2']);

    const everything = await commentsOf(task.id, { includeItems: true });
    expect(everything.totalCount).toBe(5);
    expect(bodies(everything)).toEqual(['task 1', 'on A 1', 'on B 1', 'task 2', 'on A 2']);
    expect(everything.nodes.map((c: { item: { id: string } | null }) => c.item?.id ?? null)).toEqual([null, items[0].id, items[1].id, null, items[0].id]);

    expect(bodies(await itemComments(items[1].id))).toEqual(['on B 1']);
  });

  it("with item of another task lists none of that task's comments", async () => {
    const { task } = await createTask(server, ['Mine']);
    const other = await createTask(server, ['Theirs']);
    await comment({ taskId: other.task.id, item: other.items[0].id, body: 'Private to the other task.' });
    const page = await commentsOf(task.id, { item: other.items[0].id });
    expect(page.totalCount).toBe(0);
    expect(page.nodes).toEqual([]);
  });

  it('pages with first/after: every comment once, in order, with totalCount on every page', async () => {
    const { task, items } = await createTask(server, ['A']);
    const written: string[] = [];
    for (let i = 1; i <= 7; i += 1) {
      written.push(`task comment ${i}`);
      await comment({ taskId: task.id, body: `task comment ${i}` });
      await comment({ taskId: task.id, item: items[0].id, body: `item comment ${i}` });
    }
    const seen: string[] = [];
    let after: string | undefined;
    let pages = 0;
    for (;;) {
      const page = await commentsOf(task.id, { first: 3, after });
      pages += 1;
      expect(page.totalCount).toBe(7);
      expect(page.nodes.length).toBeLessThanOrEqual(3);
      expect(page.edges.at(-1)?.cursor ?? null).toBe(page.pageInfo.endCursor);
      seen.push(...bodies(page));
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(pages).toBe(3);
    expect(seen).toEqual(written);

    const itemSeen: string[] = [];
    let itemAfter: string | undefined;
    for (;;) {
      const page = await itemComments(items[0].id, 2, itemAfter);
      expect(page.totalCount).toBe(7);
      itemSeen.push(...bodies(page));
      if (!page.pageInfo.hasNextPage) break;
      itemAfter = page.pageInfo.endCursor;
    }
    expect(itemSeen).toEqual(written.map((body) => body.replace('task', 'item')));
  });

  it("gives every item of a list its own page of comments in one query, each continuing from that item's cursor", async () => {
    const { task, items } = await createTask(server, ['A', 'B', 'C', 'D']);
    const written: Record<string, string[]> = {};
    for (const [index, item] of items.entries()) {
      written[item.id] = [];
      for (let i = 0; i < index + (index === 3 ? -3 : 1); i += 1) written[item.id].push(`${item.text} ${i}`);
    }
    // Interleaved, so one item's comments are not one id range.
    for (let i = 0; i < 3; i += 1) {
      for (const item of items) if (written[item.id][i]) await comment({ taskId: task.id, item: item.id, body: written[item.id][i] });
    }
    const LIST = `query($id: ID!) { task(id: $id) { items { nodes { id comments(first: 2) {
      totalCount pageInfo { hasNextPage endCursor } refs { id } nodes { body item { id } }
    } } } } }`;
    const nodes = (await server.ok(LIST, { id: task.id })).task.items.nodes;
    expect(nodes.map((n: { comments: { totalCount: number } }) => n.comments.totalCount)).toEqual([1, 2, 3, 0]);
    for (const node of nodes) {
      expect(bodies(node.comments)).toEqual(written[node.id].slice(0, 2));
      expect(node.comments.nodes.every((c: { item: { id: string } }) => c.item.id === node.id)).toBe(true);
      expect(node.comments.pageInfo.hasNextPage).toBe(written[node.id].length > 2);
    }
    const third = nodes[2];
    const rest = await itemComments(third.id, 2, third.comments.pageInfo.endCursor);
    expect(bodies(rest)).toEqual(written[third.id].slice(2));
    expect(rest.pageInfo.hasNextPage).toBe(false);
  });

  it('refuses a page size over 200 (TOO_LARGE) and a cursor of nothing (BAD_USER_INPUT)', async () => {
    const { task } = await createTask(server, ['A']);
    expect((await server.refused(TASK_COMMENTS, { id: task.id, first: 201 })).code).toBe('TOO_LARGE');
    expect((await server.refused(TASK_COMMENTS, { id: task.id, after: 'not-a-cursor' })).code).toBe('BAD_USER_INPUT');
    const LIST = `query($id: ID!, $first: Int, $after: String) { task(id: $id) { items { nodes { id comments(first: $first, after: $after) { totalCount } } } } }`;
    expect((await server.refused(LIST, { id: task.id, first: 201 })).code).toBe('TOO_LARGE');
    expect((await server.refused(LIST, { id: task.id, after: 'not-a-cursor' })).code).toBe('BAD_USER_INPUT');
  });
});
