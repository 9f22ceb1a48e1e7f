/**
 * Starts the BUILT server (`node dist/src/main.js`) as a new user would run
 * it: Vitest transforms sources itself, so only this catches what breaks the
 * compiled ESM output (an entity import cycle, missing decorator metadata).
 * `npm test` builds first.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const entry = path.join(root, 'dist/src/main.js');

/** A port nobody is listening on: bind port 0, read what the OS gave, release it. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

let child: ChildProcess | null = null;
let output = '';
afterAll(() => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

function exited(process: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (process.exitCode !== null || process.signalCode !== null) return Promise.resolve({ code: process.exitCode, signal: process.signalCode });
  return new Promise((resolve) => process.once('exit', (code, signal) => resolve({ code, signal })));
}

/** Polls GET /healthz until 200; fails with the server's output if it exits or never gets there. */
async function waitForHealth(base: string, process: ChildProcess): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (process.exitCode !== null || process.signalCode !== null) {
      throw new Error(`the built server exited (code ${process.exitCode}, signal ${process.signalCode}) before /healthz answered:\n${output}`);
    }
    try {
      const response = await fetch(`${base}/healthz`);
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`/healthz did not answer 200 within 20 s:\n${output}`);
}

describe('the built server', () => {
  it('starts on a fresh database, answers /healthz and GraphQL, and exits 0 on SIGTERM', async () => {
    expect(
      fs.existsSync(entry),
      `${path.relative(root, entry)} is missing: run \`npm run build\` (npm test builds before running the tests)`,
    ).toBe(true);

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskbase-startup-'));
    const dbDir = path.join(dir, 'not', 'yet', 'there');
    const dbFile = path.join(dbDir, 'taskbase.sqlite');
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    child = spawn(process.execPath, [entry], {
      cwd: dir,
      env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: `sqlite:${dbFile}`, LOG_LEVEL: 'info', NODE_ENV: 'production' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk) => { output += chunk; });
    child.stderr!.on('data', (chunk) => { output += chunk; });

    await waitForHealth(base, child);
    expect(fs.existsSync(dbDir), 'the database folder was created').toBe(true);
    expect(fs.existsSync(dbFile), 'the database file was created').toBe(true);

    const graphql = async (query: string, variables?: Record<string, unknown>) => {
      const response = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { data?: any; errors?: unknown[] };
      expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
      return body.data;
    };
    const created = await graphql(
      'mutation($input: CreateTaskInput!) { createTask(input: $input) { task { id version } items { id number } } }',
      { input: { title: 'Start-up check', goal: 'The built server answers.', itemsText: 'Build\nStart', domain: 'ops/infra' } },
    );
    expect(created.createTask.task.version).toBe(1);
    expect(created.createTask.items.map((item: { number: number }) => item.number)).toEqual([1, 2]);
    const read = await graphql(`query($id: ID!) { task(id: $id) { title state items { nodes { text } } } }`, { id: created.createTask.task.id });
    expect(read.task).toEqual({ title: 'Start-up check', state: 'OPEN', items: { nodes: [{ text: 'Build' }, { text: 'Start' }] } });

    child.kill('SIGTERM');
    const { code, signal } = await exited(child);
    expect({ code, signal }, output).toEqual({ code: 0, signal: null });
  });
});
