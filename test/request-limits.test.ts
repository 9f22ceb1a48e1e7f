/** Limits checked before anything runs: page arguments anywhere, depth, aliases, cost. */
import { getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.js';
import { refusedAndNothingRecorded } from './nothing-recorded.js';
import { createTask } from './task-fixtures.js';

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
    const { items } = await createTask(server, ['Deep']);
    let selection = 'id';
    for (let i = 0; i < 8; i += 1) selection = `task { inProgress { ${selection} } }`;
    const refused = await server.refused(`query($id: ID!) { item(id: $id) { ${selection} } }`, { id: items[0].id });
    expect(refused.code).toBe('TOO_LARGE');
    expect(refused.message).toContain('levels deep');
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
