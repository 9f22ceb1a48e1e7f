import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { textOf } from '../fixtures/mcp.js';
import { createTask } from '../fixtures/tasks.js';

/**
 * A person's steering reaches a working agent: when a person (GraphQL
 * without x-session-id) or another session changes a session's plan or an
 * item it holds a claim on, the session's next tool answer, whatever the
 * tool, starts with "Since your last call: ...", once; the agent's own
 * changes are never told back; Session.steeringSeenAt moves when it is told.
 * Through the SDK's own client over Streamable HTTP, in every tool set.
 */
let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

const START = 'mutation($input: StartSessionInput) { startSession(input: $input) { id } }';
const PLAN = 'query($id: ID!) { session(id: $id) { steeringSeenAt plan { items { nodes { id text } } } } }';
const SEEN = 'query($id: ID!) { session(id: $id) { steeringSeenAt } }';
const UPDATE_ITEM_ID = 'mutation($input: UpdateItemInput!) { updateItem(input: $input) { id } }';
const ADD_ITEMS_TASK_ID = 'mutation($input: AddItemsInput!) { addItems(input: $input) { task { id } } }';
const RELEASE = 'mutation($id: ID!) { releaseClaim(id: $id) { id } }';

interface Agent {
  sessionId: string;
  call(name: string, args: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

const open: Agent[] = [];
afterAll(async () => { await Promise.all(open.map((agent) => agent.close())); });

/** A session a person started, and an agent working in it over HTTP with the set's tools. */
async function agentOf(tools: string, preset: string): Promise<Agent> {
  const { startSession } = await server.ok(START, { input: { preset } });
  const sessionId = startSession.id as string;
  const transport = new StreamableHTTPClientTransport(new URL(`/mcp?tools=${tools}`, server.url), { requestInit: { headers: { 'x-session-id': sessionId } } });
  const client = new Client({ name: 'steered-agent', version: '1.0.0' });
  await client.connect(transport);
  const agent: Agent = {
    sessionId,
    call: async (name, args) => {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      return textOf(result);
    },
    close: () => client.close(),
  };
  open.push(agent);
  return agent;
}

async function planItems(sessionId: string): Promise<{ id: string; text: string }[]> {
  return (await server.ok(PLAN, { id: sessionId })).session.plan.items.nodes;
}

async function seenAt(sessionId: string): Promise<string | null> {
  return (await server.ok(SEEN, { id: sessionId })).session.steeringSeenAt;
}

const STEPS = ['Read the code', 'Migrate the ledger', 'Write the tests'];

/** Per plan set: how the agent writes the plan, moves step 1 itself, and one more everyday call. */
const PLAN_SETS: [string, string, { write: Record<string, unknown> & { tool: string }; own: Record<string, unknown> & { tool: string }; other: Record<string, unknown> & { tool: string } }][] = [
  ['whole-list', 'WHOLE_LIST', {
    write: { tool: 'todo_write', todos: STEPS.map((content) => ({ content, status: 'pending' })) },
    own: { tool: 'todo_write', todos: [{ content: STEPS[0], status: 'completed' }, { content: STEPS[2], status: 'in_progress' }, { content: 'Ship it', status: 'pending' }] },
    other: { tool: 'todo_write', todos: [{ content: STEPS[0], status: 'completed' }, { content: STEPS[2], status: 'completed' }, { content: 'Ship it', status: 'in_progress' }] },
  }],
  ['step-ops', 'STEP_OPS', {
    write: { tool: 'todo', op: 'set', tasks: STEPS },
    own: { tool: 'todo', op: 'update', index: 1, status: 'done', validation: 'read src/ledger.ts' },
    other: { tool: 'todo', op: 'view' },
  }],
  ['plan-and-finish', 'PLAN_AND_FINISH', {
    write: { tool: 'plan_tasks', tasks: STEPS },
    own: { tool: 'update_task', task_id: 1, status: 'done' },
    other: { tool: 'add_task', text: 'Ship it' },
  }],
];

const split = ({ tool, ...args }: Record<string, unknown> & { tool: string }): [string, Record<string, unknown>] => [tool, args];

describe('a person steering a plan', () => {
  for (const [tools, preset, calls] of PLAN_SETS) {
    it(`${tools}: the agent's next answer, whatever the tool, starts with what the person changed, once`, async () => {
      const agent = await agentOf(tools, preset);
      expect(await agent.call(...split(calls.write))).not.toContain('Since your last call');
      expect(await seenAt(agent.sessionId)).toBeNull();

      // The person drops step 2 with a reason and adds a step, from the dashboard (no x-session-id).
      const items = await planItems(agent.sessionId);
      const ledger = items.find((item) => item.text === 'Migrate the ledger')!;
      await server.ok(UPDATE_ITEM_ID, { input: { id: ledger.id, state: 'DROPPED', comment: 'out of scope' } });
      const before = new Date().toISOString();

      const told = await agent.call(...split(calls.own));
      const lines = told.split('\n');
      expect(lines[0]).toBe('Since your last call: a person dropped step 2 "Migrate the ledger" (out of scope).');
      expect(lines[1]).not.toMatch(/^Since your last call/);
      const firstSeen = await seenAt(agent.sessionId);
      expect(firstSeen).not.toBeNull();
      expect(firstSeen! >= before).toBe(true);

      // Said once, and the agent's own changes (the write above, the call below) are never told back.
      expect(await agent.call(...split(calls.other))).not.toContain('Since your last call');
      expect(await seenAt(agent.sessionId)).toBe(firstSeen);

      // A second change by the person is told on the next call, and the seen time moves.
      const plan = (await server.ok('query($id: ID!) { session(id: $id) { plan { id } } }', { id: agent.sessionId })).session.plan;
      await server.ok(ADD_ITEMS_TASK_ID, { input: { taskId: plan.id, items: ['Tell the team'] } });
      const again = await agent.call(...split(calls.other));
      expect(again.split('\n')[0]).toMatch(/^Since your last call: a person added step \d+ "Tell the team"\.$/);
      expect((await seenAt(agent.sessionId))! > firstSeen!).toBe(true);
      expect(await agent.call(...split(calls.other))).not.toContain('Since your last call');
    });
  }
});

describe('whole-list: a list written before the agent heard of a change', () => {
  it('is not written when it would undo the person\'s change: the answer gives the change and the list as it stands, and the next write is written', async () => {
    const agent = await agentOf('whole-list', 'WHOLE_LIST');
    const todos = STEPS.map((content) => ({ content, status: 'pending' }));
    await agent.call('todo_write', { todos });
    const items = await planItems(agent.sessionId);
    await server.ok(UPDATE_ITEM_ID, { input: { id: items[1]!.id, text: 'Migrate the ledger to v2' } });

    // The agent's list still has the old text: written, it would delete the person's step and add the old one back.
    const blind = (await agent.call('todo_write', { todos: [{ content: STEPS[0], status: 'in_progress' }, ...todos.slice(1)] })).split('\n');
    expect(blind[0]).toBe('Since your last call: a person changed the text of step 2 "Migrate the ledger to v2".');
    expect(blind[1]).toBe('Not written: this list would undo the change above. The list now:');
    expect(blind.slice(2, 5)).toEqual(['- [pending] Read the code', '- [pending] Migrate the ledger to v2', '- [pending] Write the tests']);
    expect((await planItems(agent.sessionId)).map((item) => item.text)).toEqual(['Read the code', 'Migrate the ledger to v2', 'Write the tests']);

    // Written again knowingly (the same list, even): the change was told, so the write is the agent's choice.
    const knowing = await agent.call('todo_write', { todos: [{ content: STEPS[0], status: 'in_progress' }, { content: 'Migrate the ledger to v2', status: 'pending' }, todos[2]] });
    expect(knowing).toBe('Updated todo list: 2 pending, 1 in progress, 0 completed.');
  });
});

describe('a person steering a claimed item', () => {
  it('knowledge-base: a change to the claimed item and the claim\'s release are each told once, the agent\'s own never', async () => {
    const agent = await agentOf('knowledge-base', 'WHOLE_LIST');
    const domain = 'steering/ledger';
    const { task, items } = await createTask(server, ['Key the handler', 'Replay the events'], { domain });
    const [handler] = items;
    expect(await agent.call('task_claim', { item: handler.id, ttl_seconds: 600 })).not.toContain('Since your last call');
    // The agent's own state change is not told back.
    await agent.call('task_item', { uid: task.id, item: handler.id, state: 'doing' });
    expect(await agent.call('must_read', { domain })).not.toContain('Since your last call');

    await server.ok(UPDATE_ITEM_ID, { input: { id: handler.id, text: 'Key the handler by order id' } });
    const renamed = await agent.call('must_read', { domain });
    expect(renamed.split('\n')[0]).toBe(`Since your last call: a person changed the text of item ${handler.id} "Key the handler by order id".`);
    expect(await seenAt(agent.sessionId)).not.toBeNull();
    expect(await agent.call('must_read', { domain })).not.toContain('Since your last call');

    // Making the claimed item wait for another is a change to it, told alike.
    await server.ok(UPDATE_ITEM_ID, { input: { id: handler.id, after: [items[1].id] } });
    const waiting = await agent.call('must_read', { domain });
    expect(waiting.split('\n')[0]).toBe(`Since your last call: a person changed what item ${handler.id} "Key the handler by order id" waits for.`);

    await server.ok(RELEASE, { id: handler.id });
    const released = await agent.call('must_read', { domain });
    expect(released.split('\n')[0]).toBe(`Since your last call: a person released your claim on item ${handler.id} "Key the handler by order id".`);
    expect(await agent.call('must_read', { domain })).not.toContain('Since your last call');

    // Once the claim is over, the item is no longer the agent's: a later change is not told (a change within a second
    // of the claim's end still counts as made during it, as the end is the database's clock and a change's the server's).
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await server.ok(UPDATE_ITEM_ID, { input: { id: handler.id, text: 'Key the handler by order id and day' } });
    expect(await agent.call('must_read', { domain })).not.toContain('Since your last call');
  });

  it('another session forcing a change past the claim is told, naming that session', async () => {
    const holder = await agentOf('knowledge-base', 'WHOLE_LIST');
    const other = await agentOf('knowledge-base', 'WHOLE_LIST');
    const domain = 'steering/forced';
    const { task, items } = await createTask(server, ['Rotate the keys'], { domain });
    await holder.call('task_claim', { item: items[0].id });
    await other.call('task_item', { uid: task.id, item: items[0].id, state: 'done', force: true, comment: 'rotated them myself' });
    const told = (await holder.call('must_read', { domain })).split('\n');
    expect(told[0]).toBe(`Since your last call: session ${other.sessionId} changed item ${items[0].id} "Rotate the keys" past your claim.`);
    expect(told[1]).toBe(`Since your last call: session ${other.sessionId} marked item ${items[0].id} "Rotate the keys" done (rotated them myself).`);
    // The forcing session is not told of its own change.
    expect(await other.call('must_read', { domain })).not.toContain('Since your last call');
  });
});
