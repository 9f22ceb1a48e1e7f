#!/usr/bin/env node
// What each MCP tool set costs a model, measured through the MCP SDK's own client against the built server
// (dist/, `npm run build`) started on a throwaway SQLite file:
//   - definitions: the bytes of every tool's name + description + inputSchema (JSON), and the server's instructions;
//   - a typical 20-call session per set (text answers, as a model reads them, with a person's steering mid-way and,
//     in knowledge-base, a task_next that waits for an item another agent releases): the bytes of its calls'
//     arguments and answers.
// Usage: node scripts/mcp-sessions.mjs [--root <repo>] [--transcript]
//   --root       measure another checkout's build (e.g. main's) with the same sessions
//   --transcript print each session as the model sees it, in Markdown (docs/mcp.md's "A real session" is this output)
// The sessions use only arguments every version since the text answers has, so two checkouts compare like for like.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const args = process.argv.slice(2);
const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const root = args.includes('--root') ? path.resolve(args[args.indexOf('--root') + 1]) : here;
const transcript = args.includes('--transcript');
const bytes = (text) => Buffer.byteLength(text, 'utf8');

async function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskbase-mcp-sessions-'));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const server = spawn(process.execPath, [path.join(root, 'dist/src/main.js')], {
  cwd: dir,
  env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: `sqlite:${path.join(dir, 'taskbase.sqlite')}`, LOG_LEVEL: 'warn', TASKBASE_TOKENS: '' },
  stdio: ['ignore', 'ignore', 'pipe'],
});
// What the server says on stderr is shown only if it does not come up.
let said = '';
server.stderr.on('data', (chunk) => { said += chunk; });
const stop = () => { server.kill('SIGTERM'); };
process.on('exit', stop);
for (let tries = 0; ; tries += 1) {
  const up = await fetch(`${base}/healthz`).then((response) => response.ok, () => false);
  if (up) break;
  if (tries > 600) throw new Error(`the server did not answer /healthz within a minute:\n${said}`);
  await new Promise((resolve) => setTimeout(resolve, 100));
}

async function graphql(query, variables = {}, headers = {}) {
  const response = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query, variables }) });
  const body = await response.json();
  if (body.errors) throw new Error(`${query}: ${body.errors[0].message}`);
  return body.data;
}

/** A person's changes, as the dashboard makes them (GraphQL without a session). */
const person = {
  planItems: async (sessionId) => (await graphql('query($id: ID!) { session(id: $id) { plan { items { nodes { id text } } } } }', { id: sessionId })).session.plan.items.nodes,
  drop: (id, comment) => graphql('mutation($input: UpdateItemInput!) { updateItem(input: $input) { id } }', { input: { id, state: 'DROPPED', comment } }),
  release: (id) => graphql('mutation($id: ID!) { releaseClaim(id: $id) { id } }', { id }),
};

/** An agent on one tool set, in a session a person started (so the script knows its id), counting what the model reads. */
async function agent(tools, preset) {
  const { startSession } = await graphql('mutation($input: StartSessionInput) { startSession(input: $input) { id } }', { input: { preset } });
  const client = new Client({ name: 'mcp-sessions', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`/mcp?tools=${tools}`, base), { requestInit: { headers: { 'x-session-id': startSession.id } } }));
  const listed = (await client.listTools()).tools;
  const definitions = listed.reduce((sum, tool) => sum + bytes(JSON.stringify({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema })), 0);
  const instructions = bytes(client.getInstructions() ?? '');
  const lines = [];
  const totals = { calls: 0, sent: 0, answered: 0 };
  return {
    sessionId: startSession.id,
    definitions,
    instructions,
    totals,
    lines,
    note: (text) => lines.push('', `*${text}*`),
    call: async (name, argsOf = {}) => {
      const result = await client.callTool({ name, arguments: argsOf });
      const text = result.content.map((part) => part.text ?? '').join('');
      totals.calls += 1;
      totals.sent += bytes(JSON.stringify({ name, arguments: argsOf }));
      totals.answered += bytes(text);
      // Session ids are random: the transcript names them by their order, as docs/mcp.md shows them.
      const shown = (line) => line.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (id) => `<session ${sessionNumber(id)}>`);
      lines.push('', `> ${name} ${JSON.stringify(argsOf)}`, ...text.split('\n').map((line) => `< ${shown(line)}`));
      return text;
    },
    close: () => client.close(),
  };
}

const sessionNumbers = new Map();
const sessionNumber = (id) => {
  if (!sessionNumbers.has(id)) sessionNumbers.set(id, sessionNumbers.size + 1);
  return sessionNumbers.get(id);
};

const STEPS = ['Reproduce the crash', 'Read the tokenizer', 'Fix tokenize()', 'Migrate the ledger', 'Add a regression test', 'Run the suite'];
const VALIDATION = (step) => `checked: ${step.toLowerCase()}; node repro.js exits 0 and the log shows no TypeError at tokenize (line 41)`;

async function wholeList() {
  const a = await agent('whole-list', 'WHOLE_LIST');
  let list = STEPS.map((content) => ({ content, status: 'pending' }));
  const write = () => a.call('todo_write', { todos: list });
  await write();
  for (let i = 0; i < STEPS.length && a.totals.calls < 19; i += 1) {
    if (!list[i]) break;
    list = list.map((todo, n) => (n === i ? { ...todo, status: 'in_progress' } : todo));
    await write();
    if (i === 2) {
      a.note('A person drops "Migrate the ledger" in the dashboard.');
      const ledger = (await person.planItems(a.sessionId)).find((item) => item.text === 'Migrate the ledger');
      await person.drop(ledger.id, 'out of scope');
    }
    list = list.map((todo, n) => (n === i ? { ...todo, status: 'completed' } : todo));
    const answer = await write();
    if (answer.includes('Not written')) {
      list = list.filter((todo) => todo.content !== 'Migrate the ledger');
      await write();
    }
  }
  while (a.totals.calls < 20) await write();
  return a;
}

async function stepOps() {
  const a = await agent('step-ops', 'STEP_OPS');
  await a.call('todo', { op: 'set', tasks: STEPS });
  for (let index = 1; index <= STEPS.length && a.totals.calls < 18; index += 1) {
    if (index === 4) continue;
    await a.call('todo', { op: 'update', index, status: 'in_progress' });
    if (index === 2) {
      a.note('A person drops step 4, "Migrate the ledger", in the dashboard.');
      const ledger = (await person.planItems(a.sessionId)).find((item) => item.text === 'Migrate the ledger');
      await person.drop(ledger.id, 'out of scope');
    }
    await a.call('todo', { op: 'update', index, status: 'done', validation: VALIDATION(STEPS[index - 1]) });
  }
  while (a.totals.calls < 20) await a.call('todo', { op: 'view' });
  return a;
}

async function planAndFinish() {
  const a = await agent('plan-and-finish', 'PLAN_AND_FINISH');
  await a.call('plan_tasks', { tasks: STEPS });
  for (let id = 1; id <= STEPS.length; id += 1) {
    if (id === 4) continue;
    await a.call('update_task', { task_id: id, status: 'in_progress' });
    if (id === 2) {
      a.note('A person drops task 4, "Migrate the ledger", in the dashboard.');
      const ledger = (await person.planItems(a.sessionId)).find((item) => item.text === 'Migrate the ledger');
      await person.drop(ledger.id, 'out of scope');
    }
    await a.call('update_task', { task_id: id, status: 'done' });
    if (id === 3) await a.call('add_task', { text: 'Note the fix in the changelog', after_id: 3 });
  }
  await a.call('finish', {});
  await a.call('update_task', { task_id: 7, status: 'done' });
  await a.call('finish', {});
  while (a.totals.calls < 20) await a.call('finish', {});
  return a;
}

async function knowledgeBase() {
  const a = await agent('knowledge-base', 'WHOLE_LIST');
  const other = await agent('knowledge-base', 'WHOLE_LIST');
  const domain = 'acme/checkout/keys';
  const ids = (text) => [...text.matchAll(/\(id (\d+)\)/g)].map((match) => match[1]);
  await a.call('must_read', { domain: 'acme/checkout' });
  const opened = await a.call('task', {
    title: 'Rotate the webhook signing key', goal: 'No webhook is signed with a key older than 90 days.',
    items: 'Generate the new key\nUpdate the runbook', domain,
  });
  const uid = /task (\d+)/.exec(opened)[1];
  const [key, runbook] = ids(opened);
  a.note('Another agent takes the first item.');
  await other.call('task_next', { domain });
  await a.call('task_next', { domain });
  await a.call('task_item', { uid, item: runbook, state: 'done', comment: 'Runbook names the new key and the day both sign.' });
  await a.call('task_next', { domain });
  a.note('The other agent releases its item a second into this wait.');
  const released = new Promise((resolve) => setTimeout(() => resolve(other.call('task_claim', { item: key, action: 'release' })), 1_000));
  await a.call('task_next', { domain, wait_seconds: 10 });
  await released;
  await a.call('task_claim', { item: key, action: 'renew', ttl_seconds: 900 });
  const [retire] = ids(await a.call('task_add', { uid, items: 'Retire the old key' }));
  a.note('A person releases the agent\'s claim on "Generate the new key" in the dashboard.');
  await person.release(key);
  await a.call('task_read', { uid, collection: 'items' });
  await a.call('task_item', { uid, item: key, state: 'done', comment: 'New key in the vault as signing-2026-12.' });
  await a.call('task_next', { domain });
  await a.call('task_comment', { uid, body: `Both keys signed for a day; see [[#${key}]].`, item: retire });
  await a.call('task_item', { uid, item: retire, state: 'done', comment: 'Old key removed from the vault.' });
  await a.call('task_next', { domain });
  await a.call('remember', { domain, title: 'Webhook keys rotate every 90 days', body: 'Generate, sign with both for a day, retire the old one.' });
  await a.call('search', { query: 'webhook key' });
  await a.call('list_by_domain', { domain: 'acme/checkout' });
  await a.call('get_memory', { uid });
  while (a.totals.calls < 20) await a.call('must_read', { domain });
  await other.close();
  return a;
}

const SETS = [['whole-list', wholeList], ['step-ops', stepOps], ['plan-and-finish', planAndFinish], ['knowledge-base', knowledgeBase]];
const rows = [];
try {
  for (const [set, run] of SETS) {
    const a = await run();
    await a.close();
    rows.push({ set, ...a });
  }
} finally {
  stop();
  fs.rmSync(dir, { recursive: true, force: true });
}

if (transcript) {
  for (const row of rows) {
    console.log(`\n### \`${row.set}\`\n\n\`\`\`text${row.lines.join('\n')}\n\`\`\``);
  }
} else {
  console.log(`${path.relative(process.cwd(), root) || '.'}: bytes a model reads (instructions once per connection)`);
  console.log('set              definitions  instructions  20-call session: calls  sent  answered  total incl. definitions');
  for (const row of rows) {
    const total = row.definitions + row.instructions + row.totals.sent + row.totals.answered;
    console.log(`${row.set.padEnd(17)}${String(row.definitions).padStart(11)}${String(row.instructions).padStart(14)}${String(row.totals.calls).padStart(24)}${String(row.totals.sent).padStart(6)}${String(row.totals.answered).padStart(10)}${String(total).padStart(25)}`);
  }
}
