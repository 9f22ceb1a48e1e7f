/**
 * Briefs' dependsOn as edges (Item.blockedBy, Item.blocks, Item.ready), cycles
 * refused, and the ready queue of a domain: what is free to start, in order.
 */
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataSourceOptions } from '../../src/db/data-source.js';
import { MIGRATIONS } from '../../src/db/migrations/index.js';
import { ClaimsAndDependencies1764520000000 } from '../../src/db/migrations/1764520000000-claims-and-dependencies.js';
import { startTestServer, testDatabase, type TestServer } from '../harness.js';
import {
  ADD_TASK_NOTE, CLAIM_ITEM, CLAIM_NEXT, DELETE_ITEM, DELETE_TASK_NOTE, EDIT_TASK_NOTE, ITEM_COORDINATION, MOVE_ITEM, READY, UPDATE_ITEM,
} from '../fixtures/documents.js';
import { brief, freshDomain, ref } from '../fixtures/knowledge.js';
import { refusedAndNothingRecorded } from '../fixtures/nothing-recorded.js';
import { startSession, writeTodos } from '../fixtures/sessions.js';
import { createTask } from '../fixtures/tasks.js';

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

async function waits(taskId: string, items: string[], dependsOn: { item: string; reason?: string }[]) {
  return (await server.ok(ADD_TASK_NOTE, { input: { taskId, title: 'Order', items, brief: brief({ dependsOn }) } })).addTaskNote;
}

async function coordination(id: string) {
  return (await server.ok(ITEM_COORDINATION, { id })).item;
}

async function readyIds(domain: string, first?: number): Promise<string[]> {
  return (await server.ok(READY, { domain, first })).ready.map((item: { id: string }) => item.id);
}

describe('dependencies from briefs', () => {
  it('lists what an item waits for, with reasons, and what waits for it; ready follows the items waited for', async () => {
    const { task, items: [schema, handler, docs] } = await createTask(server, ['Add the refunds table', 'Write the refund handler', 'Document refunds'], { domain: freshDomain('deps') });
    await waits(task.id, [handler.id], [{ item: schema.id, reason: `it writes [[#${schema.id}]]` }]);
    await waits(task.id, [docs.id], [{ item: schema.id }, { item: handler.id, reason: 'document what it does' }]);

    const waiting = await coordination(handler.id);
    expect(waiting.blockedBy).toEqual([{ item: ref(schema, 1), reason: `it writes [[#${schema.id}]]`, reasonText: `it writes [#1 ${schema.text}]` }]);
    expect(waiting.blocks).toEqual([{ id: docs.id, text: docs.text }]);
    expect(waiting.ready).toBe(false);
    expect((await coordination(schema.id))).toMatchObject({ ready: true, blocks: [{ id: handler.id }, { id: docs.id }] });

    const blockerStates = async (id: string) => (await server.ok('query($id: ID!) { item(id: $id) { blockedBy { item { id state } } } }', { id })).item.blockedBy;
    expect(await blockerStates(handler.id)).toEqual([{ item: { id: schema.id, state: 'PENDING' } }]);
    await server.ok(UPDATE_ITEM, { input: { id: schema.id, state: 'DONE' } });
    expect((await coordination(handler.id)).ready).toBe(true);
    // The item waited for reads with its state, so a reader sees why it no longer waits.
    expect(await blockerStates(handler.id)).toEqual([{ item: { id: schema.id, state: 'DONE' } }]);
    expect((await coordination(docs.id)).ready).toBe(false);
    await server.ok(UPDATE_ITEM, { input: { id: handler.id, state: 'DROPPED', comment: 'Provider refunds instead.' } });
    expect((await coordination(docs.id)).ready).toBe(true);
    // A settled item is not ready itself: it is not work to start.
    expect((await coordination(schema.id)).ready).toBe(false);
  });

  it('replaces an edited brief\'s edges, and drops a deleted brief\'s', async () => {
    const { task, items: [a, b, c] } = await createTask(server, ['A', 'B', 'C'], { domain: freshDomain('deps') });
    const note = await waits(task.id, [c.id], [{ item: a.id }]);
    await server.ok(EDIT_TASK_NOTE, { input: { id: note.id, brief: brief({ dependsOn: [{ item: b.id, reason: 'B first' }] }) } });
    expect((await coordination(c.id)).blockedBy.map((d: { item: { id: string } }) => d.item.id)).toEqual([b.id]);
    expect((await coordination(a.id)).blocks).toEqual([]);
    await server.ok(DELETE_TASK_NOTE, { id: note.id });
    expect(await coordination(c.id)).toMatchObject({ blockedBy: [], ready: true });
    expect((await coordination(b.id)).blocks).toEqual([]);
  });

  it('refuses a brief that would make a cycle, naming it, and records nothing', async () => {
    const { task, items: [a, b, c] } = await createTask(server, ['Design the API', 'Build the API', 'Test the API'], { domain: freshDomain('deps') });
    await waits(task.id, [b.id], [{ item: a.id }]);
    const onC = await waits(task.id, [c.id], [{ item: b.id }]);
    const message = await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', ADD_TASK_NOTE, {
      input: { taskId: task.id, title: 'Loop', items: [a.id], brief: brief({ dependsOn: [{ item: c.id }] }) },
    });
    expect(message).toContain(`item ${a.id} "Design the API" waits for ${c.id} "Test the API" waits for ${b.id} "Build the API" waits for ${a.id} "Design the API"`);
    // C may wait for A as well as B: that is no loop.
    await server.ok(EDIT_TASK_NOTE, { input: { id: onC.id, brief: brief({ dependsOn: [{ item: b.id }, { item: a.id }] }) } });
    // An edit that closes a loop is refused like a new brief.
    const twoWay = await waits(task.id, [a.id], []);
    expect(await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', EDIT_TASK_NOTE, {
      input: { id: twoWay.id, brief: brief({ dependsOn: [{ item: b.id }] }) },
    })).toContain('cycle');
  });
});

describe('waits without a brief (updateItem after)', () => {
  it('makes an item wait like a brief does, beside its briefs\' waits; replaced by the next after, cleared by []', async () => {
    const domain = freshDomain('after');
    const { task, items: [schema, handler, docs] } = await createTask(server, ['Add the refunds table', 'Write the refund handler', 'Document refunds'], { domain });
    await waits(task.id, [docs.id], [{ item: schema.id, reason: 'the table first' }]);
    await server.ok(UPDATE_ITEM, { input: { id: docs.id, after: [handler.id, schema.id] } });
    // The brief's wait keeps its reason; the one after adds comes after the briefs'.
    expect((await coordination(docs.id)).blockedBy).toEqual([
      { item: ref(schema, 1), reason: 'the table first', reasonText: 'the table first' },
      { item: ref(handler, 2), reason: null, reasonText: null },
    ]);
    expect((await coordination(handler.id)).blocks).toEqual([{ id: docs.id, text: docs.text }]);
    // Item.dependsOn reads the same waits.
    expect((await server.ok('query($id: ID!) { item(id: $id) { dependsOn { item { id } reason } } }', { id: docs.id })).item.dependsOn).toEqual([
      { item: { id: schema.id }, reason: 'the table first' }, { item: { id: handler.id }, reason: null },
    ]);
    expect(await readyIds(domain)).toEqual([schema.id, handler.id]);
    const agent = await startSession(server);
    await server.ok(UPDATE_ITEM, { input: { id: schema.id, state: 'DONE' } });
    expect((await server.ok(CLAIM_NEXT, { domain }, { session: agent })).claimNext).toMatchObject({ id: handler.id });
    expect((await server.ok(CLAIM_NEXT, { domain }, { session: agent })).claimNext).toBeNull();
    // [] clears what after said; the brief's wait, on a settled item now, no longer holds it.
    await server.ok(UPDATE_ITEM, { input: { id: docs.id, after: [] } });
    expect(await coordination(docs.id)).toMatchObject({ ready: true, blockedBy: [{ item: { id: schema.id } }] });
    const history = (await server.ok('query($id: ID!) { task(id: $id) { history(first: 50) { nodes { action } } } }', { id: task.id })).task.history.nodes;
    expect(history.filter((event: { action: string }) => event.action === 'ITEM_WAITS')).toHaveLength(2);
  });

  it('refuses a cycle through a brief\'s waits, naming it, an item of another task, and the item itself, recording nothing', async () => {
    const { task, items: [a, b, c] } = await createTask(server, ['Design the API', 'Build the API', 'Test the API'], { domain: freshDomain('after') });
    const other = await createTask(server, ['Elsewhere'], { domain: freshDomain('after') });
    await waits(task.id, [b.id], [{ item: a.id }]);
    await server.ok(UPDATE_ITEM, { input: { id: c.id, after: [b.id] } });
    const message = await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', UPDATE_ITEM, { input: { id: a.id, state: 'IN_PROGRESS', after: [c.id] } });
    expect(message).toContain(`This after would make a cycle: item ${a.id} "Design the API" waits for ${c.id} "Test the API" waits for ${b.id} "Build the API" waits for ${a.id} "Design the API"`);
    // The brief that would close the same loop is refused too: both kinds of wait are one graph.
    await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', ADD_TASK_NOTE, { input: { taskId: task.id, title: 'Loop', items: [a.id], brief: brief({ dependsOn: [{ item: c.id }] }) } });
    const unknown = await server.refused(UPDATE_ITEM, { input: { id: a.id, after: [other.items[0].id] } });
    expect(unknown.code).toBe('UNKNOWN_REFERENCE');
    expect((await server.refused(UPDATE_ITEM, { input: { id: a.id, after: [a.id] } })).message).toContain('an item cannot wait for itself');
  });
});

describe('ready(domain)', () => {
  it('lists open, unclaimed items whose dependencies are settled, oldest task first, then list order, under the domain only', async () => {
    const domain = freshDomain('ready');
    const older = await createTask(server, ['First', 'Second', 'Blocked one', 'Waiting one', 'Claimed one', 'Done one', 'Deleted one'], { domain });
    const newer = await createTask(server, ['Newer work', 'Failed one'], { domain });
    const below = await createTask(server, ['Below work'], { domain: `${domain}/api` });
    await createTask(server, ['Sibling work'], { domain: `${domain}-v2` });
    await createTask(server, ['Elsewhere'], { domain: freshDomain('other') });
    const archived = await createTask(server, ['Finished'], { domain });
    const [first, second, blocked, waiting, claimed, done, deleted] = older.items;
    const agent = await startSession(server);
    // A plan's steps are never ready work, whoever's session it is.
    await writeTodos(server, agent, [['Plan step', 'PENDING']]);

    await server.ok(MOVE_ITEM, { input: { id: second.id, after: null } });
    await server.ok(UPDATE_ITEM, { input: { id: blocked.id, state: 'BLOCKED', comment: 'Waiting on finance.' } });
    await waits(older.task.id, [waiting.id], [{ item: first.id }]);
    await server.ok(CLAIM_ITEM, { input: { id: claimed.id } }, { session: agent });
    await server.ok(UPDATE_ITEM, { input: { id: done.id, state: 'DONE' } });
    await server.ok(DELETE_ITEM, { id: deleted.id });
    await server.ok(UPDATE_ITEM, { input: { id: newer.items[1].id, state: 'FAILED', comment: 'Broke the build.' } });
    await server.ok(UPDATE_ITEM, { input: { id: archived.items[0].id, state: 'DONE' } });
    await server.ok(UPDATE_ITEM, { input: { id: first.id, state: 'IN_PROGRESS' } });

    expect(await readyIds(domain)).toEqual([second.id, first.id, newer.items[0].id, below.items[0].id]);
    expect(await readyIds(domain, 2)).toEqual([second.id, first.id]);
    expect(await readyIds(`${domain}/api`)).toEqual([below.items[0].id]);

    await server.ok(UPDATE_ITEM, { input: { id: first.id, state: 'DONE' } });
    expect(await readyIds(domain)).toEqual([second.id, waiting.id, newer.items[0].id, below.items[0].id]);
  });

  it('refuses a page over 200 and a malformed domain', async () => {
    expect((await server.refused(READY, { domain: 'acme', first: 201 })).code).toBe('TOO_LARGE');
    expect((await server.refused(READY, { domain: 'Not A Domain' })).code).toBe('INVALID_DOMAIN');
  });
});

describe('claimNext(domain)', () => {
  it('claims the first ready item for the calling session, then the next, and answers null when nothing is ready', async () => {
    const domain = freshDomain('next');
    const { items: [a, b] } = await createTask(server, ['Alpha', 'Beta'], { domain });
    const [one, two, three] = [await startSession(server), await startSession(server), await startSession(server)];
    expect((await server.ok(CLAIM_NEXT, { domain }, { session: one })).claimNext).toMatchObject({ id: a.id, claim: { session: { id: one } } });
    expect((await server.ok(CLAIM_NEXT, { domain, ttlSeconds: 60 }, { session: two })).claimNext).toMatchObject({ id: b.id, claim: { session: { id: two } } });
    expect((await server.ok(CLAIM_NEXT, { domain }, { session: three })).claimNext).toBeNull();
    expect(await refusedAndNothingRecorded(server, 'NO_SESSION', CLAIM_NEXT, { domain })).toContain('x-session-id');
    await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', CLAIM_NEXT, { domain, ttlSeconds: 3_601 }, { session: three });
  });
});

describe('a database whose briefs were written before dependencies were rows', () => {
  it('gets their edges when it is migrated', async () => {
    const { file, databaseUrl } = await testDatabase();
    const old = new DataSource({ ...dataSourceOptions(databaseUrl, 'writer'), migrations: MIGRATIONS.slice(0, MIGRATIONS.indexOf(ClaimsAndDependencies1764520000000)) } as never);
    await old.initialize();
    await old.runMigrations();
    const now = new Date().toISOString();
    await old.query(`INSERT INTO "memories" ("id", "kind", "title", "domain", "createdAt", "updatedAt") VALUES (1, 'TASK', 'Old', 'old/db', '${now}', '${now}')`);
    for (const [id, text] of [[1, 'Schema'], [2, 'Handler'], [3, 'Docs']] as const) {
      await old.query(`INSERT INTO "items" ("id", "taskId", "text", "state", "position", "deleted", "createdAt", "updatedAt") VALUES (${id}, 1, '${text}', 'PENDING', ${id}, FALSE, '${now}', '${now}')`);
    }
    const stored = JSON.stringify({ ...brief(), extraInfo: null, dependsOn: [{ item: '1', reason: 'the table first' }] });
    await old.query(`INSERT INTO "task_notes" ("id", "taskId", "title", "brief", "createdAt", "updatedAt") VALUES (1, 1, 'Order', '${stored}', '${now}', '${now}')`);
    await old.query(`INSERT INTO "task_note_items" ("noteId", "itemId") VALUES (1, 2), (1, 3)`);
    await old.destroy();

    const migrated = await startTestServer({ file });
    try {
      const read = async (id: string) => (await migrated.ok(ITEM_COORDINATION, { id })).item;
      expect(await read('2')).toMatchObject({ ready: false, blockedBy: [{ item: { id: '1' }, reason: 'the table first' }] });
      expect(await read('3')).toMatchObject({ ready: false, blockedBy: [{ item: { id: '1' } }] });
      expect((await read('1')).blocks.map((item: { id: string }) => item.id)).toEqual(['2', '3']);
      expect((await migrated.ok(READY, { domain: 'old/db' })).ready.map((item: { id: string }) => item.id)).toEqual(['1']);
    } finally {
      await migrated.close();
    }
  });
});
