/**
 * Refusals are data from end to end: GraphQL sends each refusal's reason and
 * facts (ids, limits, counts, holder, expiry) in extensions beside its code,
 * with the message unchanged; every MCP tool set words its refusals in its
 * own vocabulary, naming no GraphQL operation or input field; and no MCP or
 * dashboard file reads an error's message text to decide what to say.
 * Through GraphQL over HTTP and the MCP SDK client, on a real database
 * (SQLite, or PostgreSQL with TEST_POSTGRES_URL).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type GraphQLResponse, type TestServer } from '../harness.js';
import { CLAIM_ITEM, DELETE_ITEM, EDIT_TASK, UPDATE_ITEM } from '../fixtures/documents.js';
import { freshDomain } from '../fixtures/knowledge.js';
import { connectMcp, refusedByTool, type McpTestClient } from '../fixtures/mcp.js';
import { startSession } from '../fixtures/sessions.js';
import { createTask } from '../fixtures/tasks.js';

let server: TestServer;
const clients: McpTestClient[] = [];
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  for (const client of clients) await client.close();
  await server?.close();
});

async function mcp(tools: string): Promise<McpTestClient> {
  const client = await connectMcp(server, { tools, structured: true });
  clients.push(client);
  return client;
}

function firstError(answer: GraphQLResponse): { message: string; extensions: Record<string, unknown> } {
  expect(answer.errors?.length, JSON.stringify(answer.data)).toBeGreaterThan(0);
  return answer.errors![0] as { message: string; extensions: Record<string, unknown> };
}

const CREATE = `mutation($input: CreateTaskInput!) { createTask(input: $input) { task { id } } }`;

/** GraphQL's own names (camelCase Query and Mutation fields and input fields, from the schema file): no MCP refusal may say one. */
function graphqlNames(): string[] {
  const schema = fs.readFileSync('schema.graphql', 'utf8');
  const names = new Set<string>();
  for (const block of schema.matchAll(/(?:type (?:Mutation|Query)|input \w+) [^{]*\{([^}]*)\}/g)) {
    for (const line of block[1]!.split('\n')) {
      const field = /^\s+(\w+)[(:]/.exec(line)?.[1];
      if (field && /[a-z][A-Z]/.test(field)) names.add(field);
    }
  }
  return [...names];
}

describe('GraphQL sends the facts', () => {
  it('in extensions, beside the code and an unchanged message, for refusals of tasks, items, claims and plans', async () => {
    const domain = freshDomain('facts');
    const { task, items: [kept, gone] } = await createTask(server, ['Write the refund handler', 'Retire the old queue'], { domain });

    const conflict = firstError(await server.gql(EDIT_TASK, { input: { id: task.id, expectedVersion: 999, title: 'Renamed' } }));
    expect(conflict.extensions).toMatchObject({ code: 'VERSION_CONFLICT', reason: 'VERSION_CONFLICT', taskId: task.id, expectedVersion: 999, currentVersion: expect.any(Number) });
    const current = conflict.extensions.currentVersion as number;
    expect(conflict.message).toBe(`Task ${task.id} is at version ${current}, not 999: it changed since you read it. Read the task again, then resend your change with expectedVersion: ${current}.`);

    await server.ok(DELETE_ITEM, { id: gone.id });
    const deleted = firstError(await server.gql(UPDATE_ITEM, { input: { id: gone.id, state: 'DONE' } }));
    expect(deleted.extensions).toEqual({ code: 'DELETED_ITEM', reason: 'ITEM_DELETED', remedy: 'ADD_THE_WORK_AGAIN', itemId: gone.id, text: 'Retire the old queue' });
    expect(deleted.message).toBe(`Item ${gone.id} ("Retire the old queue") is deleted; it can still be cited as [[#${gone.id}]] but not changed. Add a new item with addItems if the work is back.`);

    const [holder, other] = [await startSession(server), await startSession(server)];
    const claim = (await server.ok(CLAIM_ITEM, { input: { id: kept.id, ttlSeconds: 600 } }, { session: holder })).claimItem.claim;
    const claimed = firstError(await server.gql(CLAIM_ITEM, { input: { id: kept.id } }, { session: other }));
    expect(claimed.extensions).toMatchObject({ code: 'CLAIMED', reason: 'CLAIMED_BY_OTHER', itemId: kept.id, holder, expiresAt: claim.expiresAt });
    expect(claimed.extensions.expiresInSeconds).toBeGreaterThan(590);
    const fenced = firstError(await server.gql(UPDATE_ITEM, { input: { id: kept.id, state: 'DONE' } }, { session: other }));
    expect(fenced.extensions).toMatchObject({ code: 'CLAIMED', reason: 'CLAIM_FENCED', remedy: 'LEAVE_CLAIMED_WORK', itemId: kept.id, caller: other, holder, takenOver: false });
    const ttl = firstError(await server.gql(CLAIM_ITEM, { input: { id: kept.id, ttlSeconds: 99999 } }, { session: holder }));
    expect(ttl.extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'CLAIM_TTL_OUT_OF_RANGE', ttlSeconds: 99999, min: expect.any(Number), max: expect.any(Number) });

    const long = firstError(await server.gql(CREATE, { input: { title: 'Refunds', goal: 'Each refund is sent once.', domain, items: ['Key refunds by event id', 'x'.repeat(81)] } }));
    expect(long.extensions).toEqual({ code: 'TEXT_TOO_LONG', reason: 'LABEL_TOO_LONG', remedy: 'BRIEF_THE_DETAIL', field: 'items', item: 2, of: 2, length: 81, limit: 80 });
    expect(long.message).toMatch(/^item 2 of 2 sent is 81 characters; the limit is 80\. Keep it a short label/);

    const nothing = firstError(await server.gql(EDIT_TASK, { input: { id: task.id } }));
    expect(nothing.extensions).toEqual({ code: 'BAD_USER_INPUT', reason: 'NOTHING_TO_CHANGE', operation: 'editTask', fields: ['title', 'goal', 'domain'] });
    expect(nothing.message).toBe('editTask needs at least one of title, goal or domain.');

    // A plan rule outside the catalogue still carries its facts, with its code as its reason.
    const planner = await startSession(server, { rules: { maxItems: 2 } });
    const size = firstError(await server.gql(`mutation($todos: [TodoInput!]!) { writeTodos(todos: $todos) { message } }`, {
      todos: [{ content: 'One', status: 'PENDING' }, { content: 'Two', status: 'PENDING' }, { content: 'Three', status: 'PENDING' }],
    }, { session: planner }));
    expect(size.extensions).toEqual({ code: 'PLAN_SIZE', reason: 'PLAN_SIZE', count: 3, limit: 2 });
  });
});

describe('each MCP tool set words refusals in its own vocabulary', () => {
  it('names no GraphQL operation or input field in any refusal provoked in any set', { timeout: 120_000 }, async () => {
    const graphql = graphqlNames();
    expect(graphql).toEqual(expect.arrayContaining(['addItems', 'updateItem', 'claimItem', 'claimNext', 'renewClaim', 'expectedVersion', 'ttlSeconds', 'doneWhen']));
    const said: [string, string][] = [];
    const refused = async (client: McpTestClient, name: string, args: Record<string, unknown>) => {
      said.push([`${name} ${JSON.stringify(args).slice(0, 60)}`, await refusedByTool(server, client, name, args)]);
    };

    // knowledge-base: claims and items, two agents on one backlog.
    const domain = freshDomain('words');
    const [first, second] = [await mcp('knowledge-base'), await mcp('knowledge-base')];
    const made = (await first.ok('task', { title: 'Move billing webhooks', goal: 'Every webhook is deduplicated.', items: 'Key charges by event id\nCover refunds\nRetire the lookup', domain })).data;
    const uid: string = made.uid;
    const [held, free, gone] = made.items as string[];
    await first.ok('task_claim', { item: held });
    await first.ok('task_item', { uid, item: gone, delete: true });
    await refused(first, 'task_claim', { item: gone });
    await refused(first, 'task_item', { uid, item: gone, state: 'done' });
    await refused(second, 'task_claim', { item: held });
    await refused(second, 'task_item', { uid, item: held, state: 'done' });
    await refused(second, 'task_claim', { item: free, action: 'renew' });
    await refused(second, 'task_claim', { item: free, ttl_seconds: 99999 });
    await refused(second, 'task_next', { domain, ttl_seconds: 99999 });
    await refused(first, 'task_add', { uid, items: 'Cover refunds' });
    await refused(first, 'task_item', { uid, item: free, text: 'x'.repeat(81) });
    await refused(first, 'task_item', { uid, item: free });
    await refused(first, 'task_item', { uid, item: '999999', state: 'done' });

    // step-ops.
    const steps = await mcp('step-ops');
    await refused(steps, 'todo', { op: 'update', index: 1, status: 'done', validation: 'ran it' });
    await steps.ok('todo', { op: 'set', tasks: ['Read the code', 'Fix it'] });
    await refused(steps, 'todo', { op: 'update', index: 9, status: 'in_progress' });
    await refused(steps, 'todo', { op: 'update', index: 1, status: 'done' });
    await refused(steps, 'todo', { op: 'add', tasks: ['x'.repeat(501)] });

    // whole-list.
    const list = await mcp('whole-list');
    await refused(list, 'todo_write', { todos: [{ content: 'Same', status: 'pending' }, { content: 'Same', status: 'pending' }] });
    await refused(list, 'todo_write', { todos: [{ content: 'x'.repeat(501), status: 'pending' }] });

    // plan-and-finish.
    const checklist = await mcp('plan-and-finish');
    await refused(checklist, 'finish', {});
    await refused(checklist, 'plan_tasks', { tasks: ['Only one'] });
    await checklist.ok('plan_tasks', { tasks: ['Run the tests', 'Fix the failures'] });
    await refused(checklist, 'plan_tasks', { tasks: ['Again', 'And again'] });
    await refused(checklist, 'update_task', { task_id: 2, status: 'blocked' });
    await refused(checklist, 'update_task', { task_id: 9, status: 'done' });

    const leaks = said.flatMap(([call, text]) => {
      const words = new Set(text.match(/[A-Za-z_]+/g) ?? []);
      const foreign = graphql.filter((name) => words.has(name));
      return foreign.length ? [`${call}: ${foreign.join(', ')} in ${text}`] : [];
    });
    expect(leaks).toEqual([]);
    // task_claim on a deleted item says to add the work again with this set's tool.
    expect(said[0]![1]).toContain('task_add');
  });
});

describe('no layer reads another layer\'s message text', () => {
  /** Every .ts/.tsx file under a folder. */
  function sources(folder: string): string[] {
    return fs.readdirSync(folder, { recursive: true, encoding: 'utf8' })
      .filter((file) => /\.tsx?$/.test(file) && !/\.test\.tsx?$/.test(file))
      .map((file) => path.join(folder, file));
  }

  it('src/mcp and the dashboard never match, test or rewrite an error message', () => {
    // A regex run over a message, a message searched or rewritten, or a message compared with text.
    const matching = /\.(?:test|exec)\([^)]*\bmessage\b|\bmessage\)?\.(?:replace|replaceAll|match|includes|startsWith|endsWith|search)\(|\bmessage\s*===?\s*['"`]/;
    // Zod's issue text (tool-arguments.ts) and graphql-js's variable errors (api.ts forPeople) are not refusals: they carry no reason or facts to word instead.
    const allowed: Record<string, RegExp> = {
      'src/mcp/common/tool-arguments.ts': /issue\.message\.replace/,
      'web/src/api.ts': /^\s*const variable = \/\^Variable/,
    };
    const found = [...sources('src/mcp'), ...sources('web/src')].flatMap((file) =>
      fs.readFileSync(file, 'utf8').split('\n').flatMap((line, index) =>
        matching.test(line) && !allowed[file]?.test(line) ? [`${file}:${index + 1}: ${line.trim()}`] : []));
    expect(found).toEqual([]);
  });
});
