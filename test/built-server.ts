/**
 * Runs the BUILT server (`node dist/src/main.js`) as a child process, as a
 * new user or an operator would. `npm test` builds first.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const entry = path.join(root, 'dist/src/main.js');

/** A port nobody is listening on: bind port 0, read what the OS gave, release it. */
export async function freePort(): Promise<number> {
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

export interface BuiltServer {
  process: ChildProcess;
  base: string;
  /** Everything it printed so far. */
  output(): string;
  /** POSTs one GraphQL operation and returns the parsed body. */
  graphql(query: string, variables?: Record<string, unknown>): Promise<{ data?: any; errors?: { message: string }[] }>;
  exited(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts the built server on a free port and waits for GET /healthz 200 (failing with its output if it never
 * answers within `readyWithinMs`; tests that start several at once on a busy machine give it longer).
 */
export async function startBuiltServer(databaseUrl: string, cwd: string, readyWithinMs = 60_000, env: NodeJS.ProcessEnv = {}): Promise<BuiltServer> {
  expect(fs.existsSync(entry), `${path.relative(root, entry)} is missing: run \`npm run build\` (npm test builds before running the tests)`).toBe(true);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [entry], {
    cwd,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: databaseUrl, LOG_LEVEL: 'info', NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => { output += chunk; });
  child.stderr!.on('data', (chunk) => { output += chunk; });
  const exited = () =>
    child.exitCode !== null || child.signalCode !== null
      ? Promise.resolve({ code: child.exitCode, signal: child.signalCode })
      : new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));

  const deadline = Date.now() + readyWithinMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the built server exited (code ${child.exitCode}, signal ${child.signalCode}) before /healthz answered:\n${output}`);
    }
    if (Date.now() > deadline) {
      // The caller gets no handle to stop it with: stop it here, or it outlives the test run.
      child.kill('SIGKILL');
      throw new Error(`/healthz did not answer 200 within ${readyWithinMs / 1000} s:\n${output}`);
    }
    try {
      if ((await fetch(`${base}/healthz`)).status === 200) break;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    process: child,
    base,
    output: () => output,
    exited,
    graphql: async (query, variables) => {
      const response = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
      return (await response.json()) as { data?: any; errors?: { message: string }[] };
    },
  };
}

/**
 * `count` built servers on one database, started all at once as a deployment
 * starts them (one applies the migrations, the others find them applied), each
 * in a temp folder outside the working tree so nothing they write lands in it.
 * stop() ends them with SIGTERM and removes the folder.
 */
export async function startBuiltServers(databaseUrl: string, count: number, prefix: string): Promise<{ servers: BuiltServer[]; stop(): Promise<void> }> {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const servers = await Promise.all(Array.from({ length: count }, () => startBuiltServer(databaseUrl, workDir, 90_000)));
  return {
    servers,
    stop: async () => {
      for (const server of servers) {
        server.process.kill('SIGTERM');
        await server.exited();
      }
      fs.rmSync(workDir, { recursive: true, force: true });
    },
  };
}
