/**
 * A query sent again and again is answered without Apollo's request
 * pipeline once Apollo has answered it with data (src/graphql/execution/repeated-queries.ts).
 * A client cannot tell: every answer, its status and its headers are what
 * Apollo gives, and whatever would be an error (a bad variable, a limit, a
 * refusal, an Accept asking for another type) is still Apollo's own answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { createTask } from '../fixtures/tasks.js';

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

interface Answer { status: number; type: string | null; vary: string | null; nosniff: string | null; body: string }

async function post(body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    vary: response.headers.get('vary'),
    nosniff: response.headers.get('x-content-type-options'),
    body: await response.text(),
  };
}

/** The same request sent `times` times in a row: the first runs through Apollo, the later ones the short way. */
async function repeated(body: unknown, times = 4, headers: Record<string, string> = {}): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (let i = 0; i < times; i += 1) answers.push(await post(body, headers));
  return answers;
}

const TASK = `query($id: ID!, $first: Int) { task(id: $id) { id title items(first: $first) { totalCount nodes { id text state } } } }`;

describe('a query sent again and again', () => {
  it('answers the same bytes, status and headers every time', async () => {
    const { task } = await createTask(server, ['Read the spec', 'Write the parser', 'Run the suite'], { domain: 'repeat/same' });
    const answers = await repeated({ query: `${TASK} # same-bytes`, variables: { id: task.id, first: 2 } });
    expect(answers[0]).toMatchObject({ status: 200, type: 'application/json; charset=utf-8', vary: 'Accept-Encoding', nosniff: 'nosniff' });
    expect(JSON.parse(answers[0].body).data.task.items.nodes.map((item: { text: string }) => item.text)).toEqual(['Read the spec', 'Write the parser']);
    expect(answers[0].body.endsWith('}\n')).toBe(true);
    for (const answer of answers.slice(1)) expect(answer).toEqual(answers[0]);
    // With other variables the known query reads what they name, not what it answered before.
    const other = await createTask(server, ['Only step'], { domain: 'repeat/same' });
    const next = await post({ query: `${TASK} # same-bytes`, variables: { id: other.task.id } });
    expect(JSON.parse(next.body).data.task).toMatchObject({ id: other.task.id, items: { totalCount: 1 } });
  });

  it('reads what changed since it last answered', async () => {
    const { task, items } = await createTask(server, ['First', 'Second'], { domain: 'repeat/fresh' });
    const body = { query: `${TASK} # fresh`, variables: { id: task.id } };
    await repeated(body, 3);
    await server.ok(`mutation($input: UpdateItemInput!) { updateItem(input: $input) { id } }`, { input: { id: items[0].id, state: 'DONE' } });
    const after = JSON.parse((await post(body)).body);
    expect(after.data.task.items.nodes[0]).toMatchObject({ text: 'First', state: 'DONE' });
  });

  it('still refuses as Apollo does once it is known: a badly typed variable, a page over the limit, a cursor that is not one', async () => {
    const { task } = await createTask(server, ['One', 'Two'], { domain: 'repeat/refused' });
    const known = `${TASK} # refusals`;
    await repeated({ query: known, variables: { id: task.id, first: 1 } }, 3);
    const cases: Record<string, unknown>[] = [
      { id: task.id, first: 'two' },
      { id: task.id, first: 100_000 },
      { id: task.id, first: -1 },
      { first: 1 },
    ];
    for (const variables of cases) {
      // The same request to a text the server has never seen goes through Apollo from the start: the reference.
      const fresh = await post({ query: `${TASK} # refusals-${JSON.stringify(variables)}`, variables });
      expect(fresh.status).toBeGreaterThanOrEqual(400);
      const again = await post({ query: known, variables });
      expect(again).toEqual(fresh);
    }
    const code = (answer: Answer) => JSON.parse(answer.body).errors[0].extensions.code;
    expect(code(await post({ query: known, variables: { id: task.id, first: 'two' } }))).toBe('BAD_USER_INPUT');
  });

  it('answers a coded refusal of an argument in the same words', async () => {
    const query = `query($domain: String!) { memories(domain: $domain) { totalCount } } # resolver-refusal`;
    await repeated({ query, variables: { domain: 'repeat/refused' } }, 3);
    const reference = await post({ query: `${query}-fresh`, variables: { domain: 'Not A Domain!' } });
    const answer = await post({ query, variables: { domain: 'Not A Domain!' } });
    expect(JSON.parse(answer.body).errors[0].extensions.code).toBe('INVALID_DOMAIN');
    expect(answer).toEqual(reference);
  });

  it('keeps Apollo\'s content negotiation: an Accept for graphql-response+json gets that type', async () => {
    const body = { query: '{ __typename } # accept' };
    await repeated(body, 3);
    const answer = await post(body, { accept: 'application/graphql-response+json' });
    expect(answer).toMatchObject({ status: 200, type: 'application/graphql-response+json; charset=utf-8', body: '{"data":{"__typename":"Query"}}\n' });
    const refused = await post(body, { accept: 'text/html' });
    expect(refused.status).toBe(406);
  });

  it('runs a known mutation each time it is sent, once: each is recorded', async () => {
    const { task, items } = await createTask(server, ['Count me'], { domain: 'repeat/mutation' });
    const mutation = { query: `mutation($input: AddCommentInput!) { addComment(input: $input) { id } } # mutation`, variables: { input: { taskId: task.id, item: items[0].id, body: 'again' } } };
    const answers = await repeated(mutation, 4);
    const ids = answers.map((answer) => JSON.parse(answer.body).data.addComment.id);
    expect(new Set(ids).size).toBe(4);
    const { task: read } = await server.ok(`query($id: ID!) { task(id: $id) { comments(includeItems: true) { totalCount } } }`, { id: task.id });
    expect(read.comments.totalCount).toBe(4);
  });

  it("answers a known mutation's refusals and conflicts in Apollo's words and status, recording nothing", async () => {
    const { task, items } = await createTask(server, ['Step one', 'Step two'], { domain: 'repeat/mutation-refused' });
    const UPDATE = `mutation($input: UpdateItemInput!) { updateItem(input: $input) { id state task { id version } } }`;
    const known = `${UPDATE} # known`;
    // Learned and compiled: Apollo answers it twice with data, then it goes the short way.
    await post({ query: known, variables: { input: { id: items[0].id, state: 'IN_PROGRESS' } } });
    await post({ query: known, variables: { input: { id: items[0].id, state: 'DONE' } } });
    const cases: Record<string, unknown>[] = [
      { input: { id: items[1].id, state: 'DONE', expectedVersion: 1 } },
      { input: { id: '999999999', state: 'DONE' } },
      { input: { id: items[1].id } },
      { input: { id: items[1].id, text: 'Step one' } },
    ];
    for (const variables of cases) {
      const fresh = await post({ query: `${UPDATE} # fresh-${JSON.stringify(variables)}`, variables });
      expect(JSON.parse(fresh.body).errors).toHaveLength(1);
      const again = await post({ query: known, variables });
      expect(again).toEqual(fresh);
    }
    const { task: after } = await server.ok(`query($id: ID!) { task(id: $id) { version items { nodes { text state } } } }`, { id: task.id });
    expect(after.version).toBe((task.version as number) + 2);
    expect(after.items.nodes).toEqual([{ text: 'Step one', state: 'DONE' }, { text: 'Step two', state: 'PENDING' }]);
  });

  it("refuses a read-only token's known mutation before any of it runs", async () => {
    const guarded = await startTestServer({ env: { TASKBASE_TOKENS: 'writer-secret, reader-secret:read' } });
    try {
      const as = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });
      const send = async (token: string, variables: unknown) => {
        const response = await fetch(guarded.url, { method: 'POST', headers: as(token), body: JSON.stringify({ query: 'mutation($input: CreateNoteInput!) { createNote(input: $input) { id } }', variables }) });
        return { status: response.status, body: await response.json() as { errors?: { extensions: { code: string } }[] } };
      };
      const note = (title: string) => ({ input: { title, body: 'b', domain: 'repeat/read-only' } });
      for (const title of ['one', 'two', 'three']) expect((await send('writer-secret', note(title))).status).toBe(200);
      const refused = await send('reader-secret', note('four'));
      expect(refused.status).toBe(403);
      expect(refused.body.errors?.[0]?.extensions.code).toBe('FORBIDDEN');
      const notes = await fetch(guarded.url, { method: 'POST', headers: as('writer-secret'), body: JSON.stringify({ query: '{ memories(domain: "repeat/read-only") { totalCount } }' }) });
      expect(((await notes.json()) as { data: { memories: { totalCount: number } } }).data.memories.totalCount).toBe(3);
    } finally {
      await guarded.close();
    }
  });
});
