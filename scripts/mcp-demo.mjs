#!/usr/bin/env node
// A short MCP session against a running taskbase (npm start), printed as a transcript:
// listTools, then a whole-list, a step-ops and a plan-and-finish exchange with one
// refusal each, then a knowledge-base task worked to COMPLETED, and the next ready items claimed.
// Usage: node scripts/mcp-demo.mjs [http://127.0.0.1:4000]   (TASKBASE_TOKEN as bearer token when set)
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const origin = process.argv[2] ?? 'http://127.0.0.1:4000';
const headers = process.env.TASKBASE_TOKEN ? { authorization: `Bearer ${process.env.TASKBASE_TOKEN}` } : {};

async function connect(tools) {
  const client = new Client({ name: 'mcp-demo', version: '1.0.0' });
  // Structured output on: the demo reads ids from the answers' data (the transcript prints the text, which is what a model reads).
  await client.connect(new StreamableHTTPClientTransport(new URL(`/mcp?tools=${tools}&structured=1`, origin), { requestInit: { headers } }));
  console.log(`\n## ?tools=${tools}`);
  return client;
}

async function call(client, name, args) {
  const result = await client.callTool({ name, arguments: args });
  const text = result.content.map((part) => part.text).join('');
  console.log(`\n> ${name} ${JSON.stringify(args)}`);
  console.log(text.split('\n').map((line) => `< ${line}`).join('\n'));
  return result.structuredContent;
}

const all = await connect('whole-list,knowledge-base');
console.log(`listTools: ${(await all.listTools()).tools.map((tool) => tool.name).join(', ')}`);
await call(all, 'todo_write', { todos: [{ content: 'Read the failing test', status: 'completed' }, { content: 'Fix the parser', status: 'in_progress' }, { content: 'Run the suite', status: 'pending' }] });
await call(all, 'todo_write', { todos: [{ content: 'Fix the parser', status: 'in_progress' }, { content: 'Fix the parser ', status: 'pending' }] });

await all.close();

const steps = await connect('step-ops');
await call(steps, 'todo', { tasks: ['Reproduce the crash', 'Fix tokenize()'] });
await call(steps, 'todo', { index: 1, status: 'in_progress' });
await call(steps, 'todo', { index: 1, status: 'done' });
await call(steps, 'todo', { index: 1, status: 'done', validation: 'node repro.js: TypeError at tokenize (line 41)' });
await steps.close();

const finish = await connect('plan-and-finish');
await call(finish, 'plan_tasks', { tasks: ['Reproduce the crash', 'Fix the parser', 'Run the suite'] });
await call(finish, 'update_task', { task_id: 1, status: 'done' });
await call(finish, 'add_task', { text: 'Add a regression test', after_id: 2 });
await call(finish, 'finish', {});
await call(finish, 'update_task', { task_id: 2, status: 'done' });
await call(finish, 'update_task', { task_id: 4, status: 'done' });
await call(finish, 'update_task', { task_id: 3, status: 'dropped', note: 'The suite needs the staging database, which is down.' });
await call(finish, 'finish', {});
await finish.close();

const kb = await connect('knowledge-base');
const { uid, items } = await call(kb, 'task', {
  title: 'Move billing webhooks to the idempotent handler', goal: 'Every billing webhook is deduplicated by event id.',
  items: 'Key charge.succeeded by event id\nCover refunds and disputes', domain: 'acme/checkout/billing',
});
await call(kb, 'task_item', { uid, item: items[0], state: 'done', comment: 'Handler keys off the event id.' });
await call(kb, 'task_comment', { uid, body: `Refunds reuse the handler of [[#${items[0]}]].`, item: items[1] });
await call(kb, 'task_item', { uid, item: items[1], state: 'done', comment: 'Refund and dispute events replayed twice: one row each.' });
await call(kb, 'get_memory', { uid });
// Several agents share a domain's work: task_next claims the next ready item, task_claim releases one.
const keys = await call(kb, 'task', {
  title: 'Rotate the webhook signing key', goal: 'No webhook is signed with a key older than 90 days.',
  items: 'Generate the new key\nSign with both keys for a day\nRetire the old key', domain: 'acme/checkout/keys',
});
await call(kb, 'task_next', { domain: 'acme/checkout/keys' });
await call(kb, 'task_item', { uid: keys.uid, item: keys.items[0], state: 'done', comment: 'New key in the vault as signing-2026-12.' });
await call(kb, 'task_next', { domain: 'acme/checkout/keys' });
await call(kb, 'task_claim', { item: keys.items[1], action: 'release' });
await kb.close();
