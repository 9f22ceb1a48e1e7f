/** Limits checked before anything runs: page arguments anywhere, depth, aliases, cost. */
import { getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { refusedAndNothingRecorded } from '../fixtures/nothing-recorded.js';
import { createTask } from '../fixtures/tasks.js';

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

describe('a mutation whose result asks for a bad page', () => {
  it('is refused before it runs, and records nothing', async () => {
    const create = `mutation { createTask(input: { title: "Ghost", goal: "g", domain: "limits/ghost", items: ["A"] }) { task { id items(first: 500) { totalCount } } } }`;
    const message = await refusedAndNothingRecorded(server, 'TOO_LARGE', create, {});
    expect(message).toContain('200');
    const { items } = await createTask(server, ['Commented']);
    await refusedAndNothingRecorded(
      server, 'BAD_USER_INPUT',
      'mutation($id: ID!) { updateItem(input: { id: $id, comment: "c" }) { comments(after: "bogus") { totalCount } } }', { id: items[0].id },
    );
    await refusedAndNothingRecorded(
      server, 'BAD_USER_INPUT',
      'mutation($id: ID!, $first: Int) { updateItem(input: { id: $id, state: DONE }) { task { history(first: $first) { totalCount } } } }', { id: items[0].id, first: 0 },
    );
  });
});

describe('query shape', () => {
  it('refuses a query nested too deep with TOO_LARGE', async () => {
    const id = (await server.ok('mutation { startSession { id } }')).startSession.id;
    let selection = 'id';
    for (let i = 0; i < 16; i += 1) selection = `parent { ${selection} }`;
    const refused = await server.refused(`query($id: ID!) { session(id: $id) { ${selection} } }`, { id });
    expect(refused.code).toBe('TOO_LARGE');
    expect(refused.message).toContain('levels deep');
    let fifteen = 'id';
    for (let i = 0; i < 13; i += 1) fifteen = `parent { ${fifteen} }`;
    expect((await server.ok(`query($id: ID!) { session(id: $id) { ${fifteen} } }`, { id })).session).toEqual({ parent: null });
  });

  it('refuses a query that could touch too many rows, saying how to ask for less', async () => {
    const { items } = await createTask(server, ['Costly']);
    const inner = 'items(first: 200) { nodes { id text state note } }';
    const query = `query($id: ID!) { item(id: $id) { task { items(first: 200) { nodes { task { items(first: 200) { nodes { task { ${inner} } } } } } } } } }`;
    const refused = await server.refused(query, { id: items[0].id });
    expect(refused.code).toBe('TOO_LARGE');
    expect(refused.message).toContain('smaller pages');
  });

  it('refuses more than 50 aliases', async () => {
    const fields = Array.from({ length: 51 }, (_, i) => `a${i}: reminderSettings { enabled }`).join(' ');
    expect((await server.refused(`{ ${fields} }`)).code).toBe('TOO_LARGE');
    const fifty = Array.from({ length: 50 }, (_, i) => `a${i}: reminderSettings { enabled }`).join(' ');
    expect(Object.keys(await server.ok(`{ ${fifty} }`))).toHaveLength(50);
  });

  it('lets a client read the schema by introspection', async () => {
    const data = await server.ok(getIntrospectionQuery());
    expect(data.__schema.queryType.name).toBe('Query');
  });
});

describe('what the check reads as execution does', () => {
  it('applies variable defaults: a mutation whose result asks first: $n = 500 records nothing', async () => {
    const create = `mutation($n: Int = 500) { createTask(input: { title: "Ghost", goal: "g", domain: "limits/defaults", items: ["A"] }) { task { items(first: $n) { totalCount } } } }`;
    await refusedAndNothingRecorded(server, 'TOO_LARGE', create, {});
  });

  it('leaves badly typed variables to execution, which refuses them as BAD_USER_INPUT', async () => {
    const refused = await server.refused('query($a: String) { memories(domain: "x", after: $a) { totalCount } }', { a: { length: 100_000_000 } });
    expect(refused.code).toBe('BAD_USER_INPUT');
  });

  it('does not check a field @include(if: false) leaves out', async () => {
    const data = await server.ok('query($show: Boolean = false) { memories(domain: "x", first: 500) @include(if: $show) { totalCount } reminderSettings { enabled } }');
    expect(data).toEqual({ reminderSettings: { enabled: true } });
  });

  it('counts a fragment spread many times over once per selection, as it runs', async () => {
    const levels = 25;
    const fragments = Array.from({ length: levels }, (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`).join(' ');
    const data = await server.ok(`query { ...F0 } ${fragments} fragment F${levels} on Query { reminderSettings { enabled } }`);
    expect(data).toEqual({ reminderSettings: { enabled: true } });
  });

  it('counts aliases of introspection fields too', async () => {
    const fields = Array.from({ length: 51 }, (_, i) => `s${i}: __schema { queryType { name } }`).join(' ');
    expect((await server.refused(`{ ${fields} }`)).code).toBe('TOO_LARGE');
  });
});

describe('an operation sent again', () => {
  it('is checked again for each page size, cursor and @include it is sent with, however often it passed before', async () => {
    const { task } = await createTask(server, ['Paged']);
    const page = 'query($id: ID!, $first: Int, $after: String) { task(id: $id) { items(first: $first, after: $after) { totalCount } } }';
    for (let i = 0; i < 3; i += 1) expect((await server.ok(page, { id: task.id, first: 20 })).task.items.totalCount).toBe(1);
    expect((await server.refused(page, { id: task.id, first: 500 })).code).toBe('TOO_LARGE');
    expect((await server.refused(page, { id: task.id, first: 20, after: 'bogus' })).code).toBe('BAD_USER_INPUT');
    // Another task's id with the page arguments that passed: passes, and answers that task.
    const other = (await createTask(server, ['One', 'Two'])).task;
    expect((await server.ok(page, { id: other.id, first: 20 })).task.items.totalCount).toBe(2);

    // The estimate reads the page sizes too: nested pages that pass at 5 cost too much at 200.
    const nested = `query($id: ID!, $n: Int) { task(id: $id) { items(first: $n) { nodes { task { items(first: $n) { nodes { task { items(first: $n) {
      nodes { task { items(first: $n) { nodes { id text state note } } } } } } } } } } } } }`;
    for (let i = 0; i < 2; i += 1) expect((await server.ok(nested, { id: task.id, n: 5 })).task.items.nodes).toHaveLength(1);
    const costly = await server.refused(nested, { id: task.id, n: 200 });
    expect(costly.code).toBe('TOO_LARGE');
    expect(costly.message).toContain('smaller pages');

    const shown = 'query($show: Boolean!) { memories(domain: "x", first: 500) @include(if: $show) { totalCount } reminderSettings { enabled } }';
    for (let i = 0; i < 2; i += 1) expect(await server.ok(shown, { show: false })).toEqual({ reminderSettings: { enabled: true } });
    expect((await server.refused(shown, { show: true })).code).toBe('TOO_LARGE');
  });
});
