import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { ENVIRONMENT } from '../../src/environment.js';
import { root, startBuiltServer, type BuiltServer } from '../built-server.js';

/**
 * The built CLI as a new user meets it: `taskbase --help`, each command's
 * --help, --version, `npm start`'s entry point, and a bad setting answered
 * with one line and exit 1.
 */
const CLI = path.join(root, 'dist/src/cli.js');
const MAIN = path.join(root, 'dist/src/main.js');
const COMMANDS = ['serve', 'migrate', 'schema', 'seed', 'backup', 'restore', 'remind', 'turn', 'claude-hook', 'mcp'];

interface Run { code: number | null; stdout: string; stderr: string }

function run(file: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'taskbase-cli-'));
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [file, ...args], {
      cwd, timeout: 60_000, env: { PATH: process.env.PATH ?? '', DATABASE_URL: `sqlite:${path.join(cwd, 'cli.sqlite')}`, ...env },
    }, (_error, stdout, stderr) => resolve({ code: child.exitCode, stdout, stderr }));
  });
}

describe('taskbase --help, --version and each command', () => {
  it('`migrate` says how many migrations it applied, then that there was nothing to apply', async () => {
    const database = `sqlite:${path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'taskbase-migrate-')), 'm.sqlite')}`;
    const first = await run(CLI, ['migrate'], { DATABASE_URL: database });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout.trim()).toMatch(/^applied \d+ migrations; the database is up to date$/);
    const again = await run(CLI, ['migrate'], { DATABASE_URL: database });
    expect(again.stdout.trim()).toBe('the database was already up to date');
  });

  it('lists every command with what it does, and exits 0', async () => {
    const { code, stdout } = await run(CLI, ['--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: taskbase \[options\] \[command\]/);
    for (const command of COMMANDS) expect(stdout).toMatch(new RegExp(`^  ${command}\\b.* \\S`, 'm'));
    expect(stdout).toContain('--version');
  });

  it.each(COMMANDS)('`taskbase %s --help` says what it takes, and runs nothing', async (command) => {
    const { code, stdout, stderr } = await run(CLI, [command, '--help']);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toMatch(new RegExp(`^Usage: taskbase ${command} `));
  });

  it("prints package.json's version", async () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) {
      const { code, stdout } = await run(CLI, [flag]);
      expect(code).toBe(0);
      expect(stdout.trim()).toBe(version);
    }
  });

  it("`serve --help` (and npm start's `node dist/src/main.js --help`) lists serve's options and the whole environment, and starts nothing", async () => {
    for (const [file, args] of [[CLI, ['serve', '--help']], [MAIN, ['--help']]] as const) {
      const { code, stdout } = await run(file, [...args]);
      expect(code).toBe(0);
      expect(stdout).toMatch(/^Usage: taskbase serve \[options\]/);
      for (const option of ['--port', '--host', '--database']) expect(stdout).toContain(option);
      for (const { name, fallback } of ENVIRONMENT) {
        const line = stdout.split('\n').find((l) => l.trimStart().startsWith(`${name} `));
        expect(line, `${name} is in serve --help`).toBeDefined();
        if (fallback !== 'unset') expect(line).toContain(`default: ${fallback}`);
      }
    }
  });

  it('answers an unknown command with what to type instead, exit 1', async () => {
    const { code, stderr } = await run(CLI, ['srve']);
    expect(code).toBe(1);
    expect(stderr).toContain("unknown command 'srve'");
    expect(stderr).toContain('taskbase --help');
  });
});

describe('a bad setting', () => {
  const BAD: [variable: string, value: string, accepts: RegExp][] = [
    ['PORT', 'abc', /0 to 65535/],
    ['PORT', '70000', /0 to 65535/],
    ['PORT', '-1', /0 to 65535/],
    ['HOST', 'two words', /127\.0\.0\.1/],
    ['HOST', 'no-such-host.invalid', /does not resolve/],
    ['DATABASE_URL', 'mysql://db/tasks', /sqlite:<path>.*postgres:\/\//],
    ['TASKBASE_BODY_LIMIT', 'x', /whole number of bytes/],
    ['TASKBASE_BODY_LIMIT', '1.5', /whole number of bytes/],
    ['LOG_LEVEL', 'loud', /info/],
    ['TASKBASE_SQLITE_SYNCHRONOUS', 'off', /"normal" or "full"/],
    ['TASKBASE_SQLITE_WAL_LIMIT_MB', '0', /MiB from 1 up/],
    ['TASKBASE_SQLITE_WAL_LIMIT_MB', '64MB', /MiB from 1 up/],
    ['TASKBASE_HEADERS_TIMEOUT_MS', 'soon', /whole number above 0/],
    ['TASKBASE_BODY_TIMEOUT_MS', '0', /whole number above 0/],
    ['TASKBASE_IDLE_TIMEOUT_MS', '-5', /whole number above 0/],
    ['TASKBASE_KEEP_ALIVE_TIMEOUT_MS', '1.5', /whole number above 0/],
    ['TASKBASE_KEEP_ALIVE_MAX_REQUESTS', 'many', /whole number above 0/],
    ['TASKBASE_MAX_CONNECTIONS_PER_CLIENT', 'x', /whole number above 0/],
    ['TASKBASE_MAX_CONNECTIONS', 'lots', /whole number above 0/],
    ['TASKBASE_ALLOWED_HOSTS', 'http://x/', /host name/],
    ['TASKBASE_ALLOWED_ORIGINS', 'nope', /scheme:\/\/host/],
    ['TASKBASE_HEAP_GROWTH_PERCENT', '1001', /from 0 to 1000/],
    ['TASKBASE_HEAP_GROWTH_PERCENT', '1.5', /from 0 to 1000/],
    // Set but naming no token would leave the server open to everyone: refused, not read as "auth off".
    ['TASKBASE_TOKENS', ',', /names no token.*unset it to turn auth off/],
    ['TASKBASE_TOKENS', ' ', /names no token/],
    ['TASKBASE_TOKENS', 'one two', /without spaces/],
    ['TASKBASE_TOKENS', 's3cret,s3cret:read', /both with and without :read/],
    // Unreachable PostgreSQL at start: where (never the password) and what to check.
    ['DATABASE_URL', 'postgres://me:hunter2@127.0.0.1:1/tasks', /PostgreSQL at 127\.0\.0\.1:1\/tasks refused the connection(?!.*hunter2)/],
  ];

  it.each(BAD)('%s=%s stops `npm start` with one line naming it and what it accepts, exit 1, no stack', async (variable, value, accepts) => {
    const { code, stdout, stderr } = await run(MAIN, [], { [variable]: value, PORT: variable === 'PORT' ? value : '0' });
    expect(code).toBe(1);
    expect(stdout).toBe('');
    const lines = stderr.trimEnd().split('\n');
    expect(lines, stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^taskbase could not start: /);
    expect(lines[0]).toContain(variable);
    expect(lines[0]).toMatch(accepts);
    expect(lines[0]).not.toMatch(/^\s*\{|\bat .*\.js:\d+/);
  });

  it('given as a flag, is named as the flag', async () => {
    const { code, stderr } = await run(CLI, ['serve', '--port', 'eighty']);
    expect(code).toBe(1);
    expect(stderr.trim()).toBe('taskbase could not start: --port (PORT) must be a TCP port from 0 to 65535 (0 picks a free one); got "eighty".');
  });

  it('stops the other commands the same way', async () => {
    const { code, stderr } = await run(CLI, ['migrate'], { TASKBASE_BODY_LIMIT: 'big' });
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toContain('TASKBASE_BODY_LIMIT');
  });
});

describe('start-up', () => {
  let server: BuiltServer | null = null;
  afterAll(() => { server?.process.kill('SIGKILL'); });

  it('logs the dashboard, /graphql and /mcp URLs, and each answers there', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskbase-urls-'));
    // On a busy machine the first start (migrations included) can take longer than the default 20 s.
    server = await startBuiltServer(`sqlite:${path.join(dir, 'urls.sqlite')}`, dir, 60_000);
    // /healthz can answer before the logged line has come through the pipe to this process: wait for the line.
    const started = server;
    const line = await vi.waitFor(() => {
      const found = started.output().split('\n').map((l) => { try { return JSON.parse(l); } catch { return null; } }).find((l) => l?.graphql);
      expect(found).toBeDefined();
      return found;
    }, { timeout: 10_000, interval: 50 });
    expect(line).toMatchObject({ dashboard: `${server.base}/`, graphql: `${server.base}/graphql`, mcp: `${server.base}/mcp` });
    for (const url of [line.dashboard, line.graphql, line.mcp]) expect(line.msg).toContain(url);
    expect((await fetch(line.dashboard)).status).toBe(200);
    expect((await server.graphql('{ __typename }')).data).toEqual({ __typename: 'Query' });
    const mcp = await fetch(line.mcp, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
    });
    expect(mcp.status).toBe(200);
  });
});

describe("docs/configuration.md's table", () => {
  it('has a row for each variable serve --help lists, with the same default, and no other', () => {
    const page = fs.readFileSync(path.join(root, 'docs/configuration.md'), 'utf8');
    const heading = "## The server's environment";
    expect(page).toContain(heading);
    const section = page.slice(page.indexOf(heading), page.indexOf('\n## ', page.indexOf(heading) + 1));
    const rows = [...section.matchAll(/^\| `([A-Z_]+)` \| ([^|]+) \|/gm)].map(([, name, fallback]) => ({ name, fallback: fallback.trim().replace(/`/g, '') }));
    expect(rows.map((row) => row.name)).toEqual(ENVIRONMENT.map((variable) => variable.name));
    for (const { name, fallback } of ENVIRONMENT) {
      const row = rows.find((r) => r.name === name)!;
      expect(row.fallback.startsWith(fallback), `${name}: docs/configuration.md says ${row.fallback}`).toBe(true);
    }
  });
});
