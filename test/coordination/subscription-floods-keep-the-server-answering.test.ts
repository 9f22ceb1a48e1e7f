/**
 * One read-only token's 500 subscriptions on a heavy document, then one
 * write: the server (the built one, in a process of its own, so its memory
 * is its own) stays up with bounded memory, /healthz and another token's
 * writes keep answering throughout (ANSWERS_WITHIN_MS), subscribers sharing a document
 * get the event from one execution, and those the fan-out cannot keep up
 * with get one TOO_LARGE and are closed.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startBuiltServer, type BuiltServer } from '../built-server.js';
import { ANSWERS_WITHIN_MS, testDatabase } from '../harness.js';
import { ADD_ITEMS, CREATE_TASK, COMMENT_ON_TASK } from '../fixtures/documents.js';

const WRITER = 'Bearer flood-writer';
const OTHER_WRITER = 'Bearer flood-other';
const READER = 'Bearer flood-reader';
const POKE_SETTINGS = 'mutation { updateReminderSettings(enabled: true) { enabled } }';
const SETTINGS_CHANGED = 'subscription { reminderSettingsChanged { enabled } }';
/**
 * The red team's document, every item's related notes with their bodies, with related(first: 5): without it the
 * query could plan 200 × 100 bodies of 20,000 characters, and is refused before it subscribes (test/heavy-related-
 * reads-leave-the-server-answering.test.ts). `alias` makes one document differ from another.
 */
const heavy = (alias: string) =>
  `subscription($id: ID!) { taskChanged(id: $id) { task { items(first: 200) { ${alias}: nodes { related(first: 5) { id ... on Note { body } } } } } } }`;

const SHARED = 100;
const DISTINCT = 400;

let server: BuiltServer;
let workDir: string;
beforeAll(async () => {
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskbase-flood-'));
  const { databaseUrl } = await testDatabase();
  server = await startBuiltServer(databaseUrl, workDir, 60_000, {
    TASKBASE_TOKENS: 'flood-writer,flood-other,flood-reader:read',
    LOG_LEVEL: 'warn',
    // An event may wait a second for its turn here (the default is longer), so that some of the 400 surely cannot be kept up with.
    TASKBASE_WS_FANOUT_WAIT_MS: '1000',
    // The old code ran every subscriber's event at once; bounded here so that it fails fast instead of taking the machine's memory.
    NODE_OPTIONS: '--max-old-space-size=1536',
  });
}, 90_000);
afterAll(async () => {
  if (server) {
    server.process.kill('SIGTERM');
    const stopped = setTimeout(() => server.process.kill('SIGKILL'), 10_000);
    await server.exited();
    clearTimeout(stopped);
  }
  fs.rmSync(workDir, { recursive: true, force: true });
});

async function gql(query: string, variables: Record<string, unknown>, authorization: string): Promise<any> {
  const response = await fetch(`${server.base}/graphql`, {
    method: 'POST', headers: { 'content-type': 'application/json', authorization }, body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data?: any; errors?: unknown[] };
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data;
}

/** 5 notes of 1,000 characters, and a task of 200 items each related to all 5: an event of about 1 MB. */
async function heavyTask(): Promise<string> {
  const notes = Object.values(await gql(`mutation { ${Array.from({ length: 5 }, (_, i) =>
    `n${i}: createNote(input: { title: "Heavy ${i}", body: "${'x'.repeat(1_000)}", domain: "flood/heavy" }) { id }`).join('\n')} }`, {}, WRITER))
    .map((note: any) => note.id as string);
  const labels = Array.from({ length: 200 }, (_, i) => `Step ${i + 1}`);
  const made = await gql(CREATE_TASK, { input: { title: 'Heavy', goal: 'g', domain: 'flood/heavy', items: labels.slice(0, 100) } }, WRITER);
  const taskId = made.createTask.task.id as string;
  const items: { id: string }[] = [...made.createTask.items];
  items.push(...(await gql(ADD_ITEMS, { input: { taskId, items: labels.slice(100) } }, WRITER)).addItems.items);
  for (let start = 0; start < items.length; start += 50) {
    const batch = items.slice(start, start + 50).map((item, i) => `m${i}: updateItem(input: { id: "${item.id}", related: ${JSON.stringify(notes)} }) { id }`);
    await gql(`mutation { ${batch.join('\n')} }`, {}, WRITER);
  }
  return taskId;
}

/** What a subscription got: the event (data), one TOO_LARGE error, and whether the server completed it. */
interface Outcome { event: boolean; tooLarge: boolean; other: string | null; completed: boolean }

/** One graphql-ws socket as the read-only token, spoken raw so that the test reads each 1 MB event without parsing it. */
async function readerSocket(outcomes: Map<string, Outcome>, onSettings: () => void): Promise<WebSocket> {
  const socket = new WebSocket(server.base.replace(/^http/, 'ws') + '/graphql', 'graphql-transport-ws');
  await new Promise((resolve, reject) => { socket.once('open', resolve); socket.once('error', reject); });
  const acked = new Promise((resolve) => socket.once('message', resolve));
  socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: READER } }));
  await acked;
  socket.on('message', (data: Buffer) => {
    const head = data.subarray(0, 200).toString();
    const id = /"id":"([^"]+)"/.exec(head)?.[1] ?? '';
    if (id.startsWith('settings')) return onSettings();
    const outcome = outcomes.get(id);
    if (!outcome) return;
    if (/"type":"complete"/.test(head)) outcome.completed = true;
    else if (data.length > 100_000) outcome.event = /"type":"next","payload":\{"data"/.test(head);
    else {
      const message = JSON.parse(data.toString());
      const errors = message.payload?.errors ?? (message.type === 'error' ? message.payload : null);
      if (errors?.[0]?.extensions?.code === 'TOO_LARGE') outcome.tooLarge = true;
      else if (message.payload?.data?.taskChanged?.task) outcome.event = true;
      else outcome.other = data.toString().slice(0, 300);
    }
  });
  return socket;
}

/** The server process's resident memory now, from /proc. */
function rssOf(pid: number): number {
  const line = fs.readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'))!;
  return Number(/\d+/.exec(line)![0]) * 1024;
}

/**
 * Times GET /healthz and another token's write, each in a loop of its own, in a child process: this one's event loop is
 * busy with the events, and would add its own delays to what it measured. stop() returns every latency, in ms.
 */
async function startProbes(taskId: string): Promise<{ stop(): Promise<{ healthz: number[]; writes: number[]; failures?: string }> }> {
  const script = `
    const [base, authorization, taskId] = process.argv.slice(1);
    const times = { healthz: [], writes: [] };
    let done = false;
    process.stdin.on('end', () => { done = true; }).resume();
    const loop = async (name, run) => {
      while (!done) {
        const start = performance.now();
        try { await run(); } catch (error) { times.failures = String(error); }
        times[name].push(performance.now() - start);
        if (times.healthz.length && times.writes.length && !times.ready) {
          times.ready = true;
          process.stdout.write('ready\\n');
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    const ok = (response) => { if (response.status !== 200) throw new Error('status ' + response.status); return response.text(); };
    const body = JSON.stringify({ query: ${JSON.stringify(COMMENT_ON_TASK)}, variables: { taskId, body: 'meanwhile' } });
    Promise.all([
      loop('healthz', async () => ok(await fetch(base + '/healthz'))),
      loop('writes', async () => ok(await fetch(base + '/graphql', { method: 'POST', headers: { 'content-type': 'application/json', authorization }, body }))),
    ]).then(() => process.stdout.write(JSON.stringify({ healthz: times.healthz, writes: times.writes, failures: times.failures })));
  `;
  const child = spawn(process.execPath, ['-e', script, server.base, OTHER_WRITER, taskId], { stdio: ['pipe', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.on('data', (chunk) => { output += chunk; });
  // Started once both loops have had their first answer.
  for (const deadline = Date.now() + 30_000; !output.startsWith('ready\n');) {
    if (Date.now() > deadline) throw new Error('the probes did not start');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return {
    stop: async () => {
      child.stdin.end();
      await new Promise((resolve) => child.once('exit', resolve));
      return JSON.parse(output.slice('ready\n'.length));
    },
  };
}

describe("one read-only token's 500 subscriptions on a heavy document", () => {
  it('keep /healthz and other writes answering and memory bounded; sharers get the event, the rest TOO_LARGE and closed', async () => {
    const taskId = await heavyTask();
    const other = (await gql(CREATE_TASK, { input: { title: 'Other', goal: 'g', domain: 'flood/other', items: ['One'] } }, OTHER_WRITER)).createTask.task.id;

    // 100 on one document (first: one execution serves them all), then 400 that each differ by an alias.
    const ids = [...Array.from({ length: SHARED }, (_, i) => `shared${i}`), ...Array.from({ length: DISTINCT }, (_, i) => `distinct${i}`)];
    const outcomes = new Map(ids.map((id) => [id, { event: false, tooLarge: false, other: null, completed: false } as Outcome]));
    const sockets: WebSocket[] = [];
    let settingsHeard = 0;
    // 31 heavy subscriptions and one cheap one per socket (32 is the per-socket cap): the cheap one tells when the socket's are held.
    for (let start = 0; start < ids.length; start += 31) {
      const socket = await readerSocket(outcomes, () => { settingsHeard += 1; });
      for (const id of ids.slice(start, start + 31)) {
        const query = id.startsWith('shared') ? heavy('nodes') : heavy(`n${id}`);
        socket.send(JSON.stringify({ id, type: 'subscribe', payload: { query, variables: { id: taskId } } }));
      }
      socket.send(JSON.stringify({ id: `settings${start}`, type: 'subscribe', payload: { query: SETTINGS_CHANGED } }));
      sockets.push(socket);
    }
    for (let attempt = 0; settingsHeard < sockets.length; attempt += 1) {
      expect(attempt, 'every socket hears a settings change').toBeLessThan(50);
      settingsHeard = 0;
      await gql(POKE_SETTINGS, {}, WRITER);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }

    const pid = server.process.pid!;
    const before = rssOf(pid);
    let peak = before;
    const sampler = setInterval(() => { try { peak = Math.max(peak, rssOf(pid)); } catch { /* the process is gone: the test fails below */ } }, 25);
    // /healthz and another token's writes, timed from a process of their own (this one is busy reading 100 MB of events).
    const probes = await startProbes(other);
    let times: { healthz: number[]; writes: number[]; failures?: string } = { healthz: [], writes: [] };
    try {
      await gql(COMMENT_ON_TASK, { taskId, body: 'the write' }, WRITER);
      const settled = () => [...outcomes.values()].every((o) => o.event || (o.tooLarge && o.completed));
      for (let waited = 0; !settled() && waited < 60_000 && server.process.exitCode === null; waited += 100) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      times = await probes.stop();
      clearInterval(sampler);
      for (const socket of sockets) socket.terminate();
    }

    const { healthz, writes, failures } = times;
    const all = [...outcomes.values()];
    const report = {
      events: all.filter((o) => o.event).length, tooLarge: all.filter((o) => o.tooLarge).length,
      closed: all.filter((o) => o.tooLarge && o.completed).length, neither: all.filter((o) => !o.event && !o.tooLarge).length,
      sharedEvents: all.slice(0, SHARED).filter((o) => o.event).length,
      healthzP50Ms: Math.round(healthz.sort((a, b) => a - b)[healthz.length >> 1]), writeP50Ms: Math.round(writes.sort((a, b) => a - b)[writes.length >> 1]),
      rssBeforeMB: Math.round(before / 2 ** 20), rssPeakMB: Math.round(peak / 2 ** 20),
      healthzMaxMs: Math.round(Math.max(...healthz)), writeMaxMs: Math.round(Math.max(...writes)), probes: healthz.length + writes.length,
    };
    console.log('subscription flood:', JSON.stringify({ ...report, failures }));
    expect(failures, 'every probe was answered').toBeUndefined();
    expect(server.process.exitCode, 'the server is still running').toBeNull();
    expect(all.filter((o) => o.other)).toEqual([]);
    // Every subscription got exactly one of the two: the event, or one TOO_LARGE after which the server completed it.
    expect(report.neither).toBe(0);
    expect(all.filter((o) => o.event && o.tooLarge)).toEqual([]);
    expect(report.closed).toBe(report.tooLarge);
    // The 100 that share one document were first in line: one execution, and every one of them has the event.
    expect(all.slice(0, SHARED).every((o) => o.event)).toBe(true);
    // 400 distinct executions of about 1 MB each cannot all start within a second: the rest are told so and closed.
    expect(report.tooLarge).toBeGreaterThan(0);
    expect(report.healthzMaxMs).toBeLessThan(ANSWERS_WITHIN_MS);
    expect(report.writeMaxMs).toBeLessThan(ANSWERS_WITHIN_MS);
    expect(peak - before).toBeLessThan(300 * 2 ** 20);
  }, 180_000);
});
