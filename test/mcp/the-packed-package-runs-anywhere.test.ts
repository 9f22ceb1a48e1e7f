import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, root } from '../built-server.js';

/**
 * The package as npm publishes it: `npm pack` ships what runs (the built
 * server, its migrations, the dashboard) and nothing else, and the tarball
 * installed into an empty prefix runs `taskbase mcp` (through the MCP SDK's
 * own stdio client) and `taskbase serve` from an empty folder with no
 * DATABASE_URL: both use the user's data folder ($XDG_DATA_HOME/taskbase),
 * say so on stderr, and leave the folder they were started from empty.
 *
 * Installed without the network: the prefix starts with a copy of this
 * clone's node_modules (hard links, so it costs no disk), which npm finds
 * satisfying every dependency, and --offline keeps it from asking the
 * registry. The copy's hidden lockfile is removed first: npm rewrites it,
 * and a hard link would carry the write back into the clone.
 */
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'taskbase-package-'));
const prefix = path.join(work, 'prefix');
const empty = path.join(work, 'empty');
const xdg = path.join(work, 'xdg');
const home = path.join(work, 'home');
const bin = path.join(prefix, 'node_modules/.bin/taskbase');
/** What a user's shell gives the command: no DATABASE_URL, HOME and XDG_DATA_HOME of the test's own. */
const env = { PATH: process.env.PATH ?? '', HOME: home, XDG_DATA_HOME: xdg, LOG_LEVEL: 'warn' };
let files: string[] = [];

function run(command: string, args: string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 120_000 });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

beforeAll(() => {
  for (const folder of [prefix, empty, xdg, home]) fs.mkdirSync(folder, { recursive: true });
  // The tarball carries dist/ as built; prepack builds it for a release, and here the built tree is reused.
  run(process.execPath, ['scripts/build-if-stale.mjs'], root);
  const [packed] = JSON.parse(run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], root)) as { filename: string; files: { path: string }[] }[];
  files = packed.files.map((file) => file.path);
  run('cp', ['-al', path.join(root, 'node_modules'), path.join(prefix, 'node_modules')], work);
  fs.rmSync(path.join(prefix, 'node_modules/.package-lock.json'), { force: true });
  run('npm', ['install', '--prefix', prefix, path.join(work, packed.filename), '--offline', '--no-audit', '--no-fund', '--no-package-lock', '--ignore-scripts'], work);
}, 180_000);

afterAll(() => {
  fs.rmSync(work, { recursive: true, force: true });
});

describe('the packed package', () => {
  it('ships the built server, its migrations and the dashboard, and no sources, tests or bench', () => {
    expect(files).toContain('dist/src/cli.js');
    expect(files).toContain('dist/src/main.js');
    expect(files).toContain('dist/web/index.html');
    expect(files.some((file) => /^dist\/src\/db\/migrations\/\d+-.*\.js$/.test(file))).toBe(true);
    expect(files.filter((file) => !file.startsWith('dist/') && !['package.json', 'README.md'].includes(file))).toEqual([]);
    expect(files.filter((file) => /\.test\.js$|\.map$|\.ts$/.test(file))).toEqual([]);
  });

  it('runs taskbase mcp from an empty folder on the user\'s data folder, said on stderr, and leaves the folder empty', async () => {
    const transport = new StdioClientTransport({ command: bin, args: ['mcp', '--tools', 'step-ops'], cwd: empty, env, stderr: 'pipe' });
    let stderr = '';
    transport.stderr!.on('data', (chunk) => { stderr += chunk; });
    const client = new Client({ name: 'package-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['todo']);
      const answer = await client.callTool({ name: 'todo', arguments: { op: 'set', tasks: ['Install taskbase'] } });
      expect(answer.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    const database = path.join(xdg, 'taskbase/taskbase.sqlite');
    expect(fs.existsSync(database)).toBe(true);
    expect(stderr).toContain(database);
    expect(stderr).toContain("DATABASE_URL is not set: outside a clone the database is in the user's data folder");
    expect(fs.readdirSync(empty)).toEqual([]);
  }, 60_000);

  it('runs taskbase serve from an empty folder on the same database: /healthz answers, stderr names the file', async () => {
    const port = await freePort();
    const child: ChildProcess = spawn(bin, ['serve', '--port', String(port)], { cwd: empty, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (chunk) => { stderr += chunk; });
    try {
      const deadline = Date.now() + 45_000;
      let status = 0;
      while (status !== 200 && Date.now() < deadline && child.exitCode === null) {
        status = await fetch(`http://127.0.0.1:${port}/healthz`).then((response) => response.status, () => 0);
        if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(status, stderr).toBe(200);
      expect(stderr).toContain(`taskbase serve: the database is ${path.join(xdg, 'taskbase/taskbase.sqlite')}`);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
    }
    expect(fs.readdirSync(empty)).toEqual([]);
  }, 60_000);
});
