import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ENVIRONMENT } from '../../src/environment.js';
import { root } from '../built-server.js';

/**
 * The README and every page of docs/ name only what exists: each
 * `taskbase <command>` (and each option given to it) is one the built CLI's
 * --help lists, each `npm run <script>` is in package.json, each TASKBASE_* or
 * TEST_POSTGRES_* variable is one the server's environment lists or the code
 * reads, each relative link and image points to a file that exists (and a
 * heading that exists, for a #fragment), and each `claude mcp add` line gives
 * the server's name where Claude Code reads it: before `--env` / `-e`, which
 * take every value that follows them.
 */
const CLI = path.join(root, 'dist/src/cli.js');
const PAGES = ['README.md', 'BENCHMARKS.md', ...fs.readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
const TEXT = new Map(PAGES.map((page) => [page, fs.readFileSync(path.join(root, page), 'utf8')]));

interface Code { inline: string[]; blocks: { lang: string; body: string }[]; prose: string }

/** A page's fenced blocks (with their language), its inline code spans (whitespace made single spaces), and the rest. */
function codeOf(text: string): Code {
  const blocks: Code['blocks'] = [];
  const outside: string[] = [];
  let fence: { lang: string; lines: string[] } | null = null;
  for (const line of text.split('\n')) {
    const open = /^```(\S*)/.exec(line);
    if (open && !fence) fence = { lang: open[1], lines: [] };
    else if (line.startsWith('```') && fence) { blocks.push({ lang: fence.lang, body: fence.lines.join('\n') }); fence = null; }
    else if (fence) fence.lines.push(line);
    else outside.push(line);
  }
  const prose = outside.join('\n');
  const inline = [...prose.matchAll(/(`+)([\s\S]+?)\1/g)].map((m) => m[2].replace(/\s+/g, ' ').trim());
  return { inline, blocks, prose };
}

const CODE = new Map(PAGES.map((page) => [page, codeOf(TEXT.get(page)!)]));

/** Shell lines of a page's sh blocks and its inline spans, continuation lines joined. */
function commandLines(page: string): string[] {
  const code = CODE.get(page)!;
  const shell = code.blocks.filter((b) => ['sh', 'bash', 'json', ''].includes(b.lang))
    .flatMap((b) => b.body.replace(/\\\n\s*/g, '').split('\n'));
  return [...shell, ...code.inline];
}

interface Mention { page: string; command: string; sub: string | null; options: string[]; text: string }

/** Every `taskbase <command> …` a page shows: inline code starting with it, or a line running the CLI (npx taskbase, cli.js). */
function mentions(page: string): Mention[] {
  const found: Mention[] = [];
  const add = (command: string, rest: string, text: string) => {
    // Options run to the end of the command: a quote closing a JSON string, a pipe, a `)` or `;` end it.
    const own = rest.split(/["'|;)]| -- /)[0];
    const sub = /^ ([a-z][a-z-]*)/.exec(own)?.[1] ?? null;
    found.push({ page, command, sub, options: [...own.matchAll(/(?:^|[\s[])(--[a-z][a-z-]*)/g)].map((m) => m[1]), text });
  };
  for (const span of CODE.get(page)!.inline) {
    const at = /^(?:npx )?taskbase ([a-z][a-z-]*)(.*)$/.exec(span);
    if (at) add(at[1], at[2], span);
  }
  for (const line of commandLines(page)) {
    for (const at of line.matchAll(/(?:npx taskbase|dist\/src\/cli\.js) ([a-z][a-z-]*)([^\n]*)/g)) add(at[1], at[2], line.trim());
  }
  return found;
}

function help(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [CLI, ...args, '--help'], { cwd: root, timeout: 60_000, env: { PATH: process.env.PATH ?? '' } }, (error, stdout) => (error ? reject(error) : resolve(stdout)));
  });
}

/** Each command the built CLI lists, with its subcommands and the options each takes. */
const CLI_COMMANDS = new Map<string, { options: Set<string>; subs: Map<string, Set<string>> }>();
const optionsIn = (text: string) => new Set([...text.matchAll(/(?:^|[\s,])(--[a-z][a-z-]*)/gm)].map((m) => m[1]));
const commandsIn = (text: string) => [...text.slice(text.indexOf('\nCommands:')).matchAll(/^ {2}([a-z][a-z-]*)\b/gm)].map((m) => m[1]).filter((name) => name !== 'help');

beforeAll(async () => {
  for (const command of commandsIn(await help([]))) {
    const text = await help([command]);
    const subs = new Map<string, Set<string>>();
    if (text.includes('\nCommands:')) {
      for (const sub of commandsIn(text)) subs.set(sub, optionsIn(await help([command, sub])));
    }
    CLI_COMMANDS.set(command, { options: optionsIn(text), subs });
  }
}, 120_000);

describe('the README and docs/ name what exists', () => {
  it('every `taskbase <command>` is a command of the built CLI, with options it takes', () => {
    const all = PAGES.flatMap(mentions);
    expect(all.length).toBeGreaterThan(20);
    expect([...CLI_COMMANDS.keys()]).toContain('mcp');
    const wrong: string[] = [];
    for (const { page, command, sub, options, text } of all) {
      const known = CLI_COMMANDS.get(command);
      if (!known) { wrong.push(`${page}: "${text}" names no command "${command}"`); continue; }
      let takes = known.options;
      if (known.subs.size) {
        const subOptions = sub ? known.subs.get(sub) : undefined;
        if (!subOptions) { wrong.push(`${page}: "${text}": ${command} has no subcommand "${sub}"`); continue; }
        takes = subOptions;
      }
      for (const option of options) if (!takes.has(option)) wrong.push(`${page}: "${text}": ${command}${known.subs.size ? ` ${sub}` : ''} takes no ${option}`);
    }
    expect(wrong).toEqual([]);
  });

  it('every `npm run <script>` is a script of package.json', () => {
    const scripts = Object.keys(JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).scripts);
    const named = PAGES.flatMap((page) => [...TEXT.get(page)!.matchAll(/npm run (?:-s )?([a-z][\w:-]*)/g)].map((m) => ({ page, script: m[1] })));
    expect(named.length).toBeGreaterThan(3);
    expect(named.filter(({ script }) => !scripts.includes(script))).toEqual([]);
  });

  it('every TASKBASE_* and TEST_POSTGRES_* variable is in the environment or read by the code', () => {
    const sources = [
      ...walk(path.join(root, 'src')).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts')),
      ...walk(path.join(root, 'scripts')), ...walk(path.join(root, 'bench')).filter((f) => f.endsWith('.mjs')),
      ...walk(path.join(root, 'test')).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts')),
    ].map((f) => fs.readFileSync(f, 'utf8')).join('\n');
    const environment = ENVIRONMENT.map((variable) => variable.name);
    const read = (name: string) => new RegExp(`(?:env\\.${name}\\b|env\\[['"]${name}['"]\\]|\\$\\{?${name}\\b)`).test(sources);
    const wrong: string[] = [];
    let count = 0;
    for (const page of PAGES) {
      for (const [, name, star] of TEXT.get(page)!.matchAll(/\b((?:TASKBASE|TEST_POSTGRES)_[A-Z0-9_]*)(\*)?/g)) {
        count += 1;
        const exists = star ? environment.some((known) => known.startsWith(name)) : environment.includes(name) || read(name);
        if (!exists) wrong.push(`${page}: ${name}${star ?? ''}`);
      }
    }
    expect(count).toBeGreaterThan(30);
    expect(wrong).toEqual([]);
  });

  it('every relative link and image points to a file that exists, and a #fragment to a heading there', () => {
    const wrong: string[] = [];
    let count = 0;
    for (const page of PAGES) {
      const { prose } = CODE.get(page)!;
      const targets = [...prose.matchAll(/\]\(([^)\s]+)\)/g), ...prose.matchAll(/<img [^>]*src="([^"]+)"/g)].map((m) => m[1]);
      for (const target of targets) {
        if (/^[a-z]+:/i.test(target)) continue;
        count += 1;
        const [file, fragment] = target.split('#');
        const resolved = file ? path.join(root, path.dirname(page), file) : path.join(root, page);
        if (!fs.existsSync(resolved)) { wrong.push(`${page}: ${target} (no such file)`); continue; }
        if (fragment && resolved.endsWith('.md') && !anchors(fs.readFileSync(resolved, 'utf8')).has(fragment)) wrong.push(`${page}: ${target} (no such heading)`);
      }
    }
    expect(count).toBeGreaterThan(30);
    expect(wrong).toEqual([]);
  });
});

describe('`claude mcp add` lines', () => {
  const lines = ['README.md', 'docs/mcp.md'].flatMap((page) => commandLines(page).flatMap((line) => {
    const at = line.indexOf('claude mcp add');
    // An inline span or a table cell may hold the command after other words; the command runs to the span's end.
    // A span that only names the command (as this test's own description does) gives no arguments to read.
    return at === -1 || line.slice(at).trim() === 'claude mcp add' ? [] : [{ page, line: line.slice(at) }];
  }));

  it('the README and docs/mcp.md show them over stdio and over HTTP', () => {
    expect(lines.filter(({ page }) => page === 'README.md').length).toBeGreaterThanOrEqual(2);
    expect(lines.some(({ line }) => parseClaudeMcpAdd(line).transport === 'http')).toBe(true);
    expect(lines.some(({ line }) => parseClaudeMcpAdd(line).transport === 'stdio')).toBe(true);
  });

  it('each gives the name before --env / -e, so every variable is KEY=value and the name is the name', () => {
    for (const { page, line } of lines) {
      const parsed = parseClaudeMcpAdd(line);
      expect(parsed.name, `${page}: ${line}`).toBe('taskbase');
      for (const value of parsed.env) expect(value, `${page}: --env took "${value}" in ${line}`).toMatch(/^[A-Za-z_][A-Za-z0-9_]*=/);
      for (const value of parsed.headers) expect(value, `${page}: --header took "${value}" in ${line}`).toMatch(/^[A-Za-z-]+: \S/);
      if (parsed.transport === 'http') expect(parsed.target, line).toMatch(/^http:\/\/127\.0\.0\.1:4000\/mcp/);
      else expect(parsed.command.slice(0, 3), line).toEqual(['node', '/path/to/taskbase/dist/src/cli.js', 'mcp']);
    }
  });

  it('a line with the name after --env is caught (the order the README once showed)', () => {
    const broken = parseClaudeMcpAdd('claude mcp add --transport stdio --env DATABASE_URL=sqlite:/tmp/t.sqlite taskbase -- node /path/to/taskbase/dist/src/cli.js mcp');
    expect(broken.env).toEqual(['DATABASE_URL=sqlite:/tmp/t.sqlite', 'taskbase']);
    expect(broken.name).toBeNull();
  });
});

/**
 * Reads `claude mcp add` arguments as Claude Code's CLI does (commander):
 * `-e/--env` and `-H/--header` take every following value up to the next
 * option or `--`; `--` ends the options, and what follows is the command.
 */
function parseClaudeMcpAdd(line: string) {
  const words = [...line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]).slice(3);
  const single = new Set(['-t', '--transport', '-s', '--scope', '--client-id', '--callback-port']);
  const result = { transport: 'stdio', name: null as string | null, target: null as string | null, env: [] as string[], headers: [] as string[], command: [] as string[] };
  const positional: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    if (word === '--') { result.command = words.slice(i + 1); break; }
    if (single.has(word)) {
      const value = words[++i];
      if (word === '-t' || word === '--transport') result.transport = value;
    } else if (['-e', '--env', '-H', '--header'].includes(word)) {
      const into = word === '-e' || word === '--env' ? result.env : result.headers;
      while (i + 1 < words.length && !words[i + 1].startsWith('-')) into.push(words[++i]);
    } else if (!word.startsWith('-')) positional.push(word);
  }
  result.name = positional[0] ?? null;
  result.target = positional[1] ?? null;
  return result;
}

/** GitHub's anchors for a page's headings (outside code blocks). */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = !fenced && /^#{1,6} (.+)$/.exec(line);
    if (!heading) continue;
    const slug = heading[1].trim().toLowerCase().replace(/[^\p{L}\p{N}\p{M} _-]/gu, '').replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    found.add(n ? `${slug}-${n}` : slug);
  }
  return found;
}

function walk(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) return [];
    return entry.isDirectory() ? walk(full) : [full];
  });
}
