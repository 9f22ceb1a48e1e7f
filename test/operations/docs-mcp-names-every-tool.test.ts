import fs from 'node:fs';
import path from 'node:path';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOL_SETS, type ToolSet } from '../../src/mcp/tool-sets.js';
import { startTestServer, type TestServer } from '../harness.js';
import { connectMcp } from '../fixtures/mcp.js';

/**
 * docs/mcp.md is the users' tool reference, kept true to the tools the
 * server lists. For every tool set, through the MCP SDK's client: each tool
 * has its own section (### `name`) under its set's heading (## `set`), naming
 * every argument and every field of its structured answer; and the page has
 * no section for a tool that does not exist.
 */
const DOC = fs.readFileSync(path.resolve('docs/mcp.md'), 'utf8');

/** The text after each heading `<level> \`name\`` up to the next heading of that level or above. */
function sections(level: '##' | '###'): Map<string, string> {
  const found = new Map<string, string>();
  const stop = level === '##' ? /^## /m : /^##{1,2} /m;
  for (const match of DOC.matchAll(new RegExp(`^${level} \`([a-z_-]+)\``, 'gm'))) {
    const from = match.index! + match[0].length;
    const next = DOC.slice(from).search(stop);
    found.set(match[1], DOC.slice(from, next === -1 ? undefined : from + next));
  }
  return found;
}

/** What the registry adds to every tool of every set, described once for all of them. */
const EVERY_TOOLS_ARGUMENTS = ['session_key'] as const;
/** What the registry adds to every structured answer (the text answer whole), described once too. */
const EVERY_TOOLS_ANSWER_FIELDS = ['answer'] as const;

const SETS = sections('##');
const TOOLS = sections('###');
const listed = new Map<ToolSet, Tool[]>();

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  for (const set of TOOL_SETS) {
    const client = await connectMcp(server, { structured: true, tools: set });
    listed.set(set, (await client.client.listTools()).tools);
    await client.close();
  }
});
afterAll(async () => { await server?.close(); });

describe('docs/mcp.md', () => {
  it.each([...TOOL_SETS])('documents every tool of %s under its set, with every argument and answer field', (set) => {
    const tools = listed.get(set)!;
    expect(tools.length).toBeGreaterThan(0);
    const underSet = SETS.get(set);
    expect(underSet, `docs/mcp.md has a section "## \`${set}\`"`).toBeDefined();
    for (const tool of tools) {
      expect(underSet, `"### \`${tool.name}\`" is under "## \`${set}\`"`).toMatch(new RegExp(`^### \`${tool.name}\``, 'm'));
      const section = TOOLS.get(tool.name)!;
      for (const argument of Object.keys(tool.inputSchema.properties ?? {}).filter((name) => !(EVERY_TOOLS_ARGUMENTS as readonly string[]).includes(name))) {
        expect(section, `${tool.name}'s section names its argument \`${argument}\``).toContain(`\`${argument}\``);
      }
      for (const field of Object.keys(tool.outputSchema?.properties ?? {}).filter((name) => !(EVERY_TOOLS_ANSWER_FIELDS as readonly string[]).includes(name))) {
        // The plan-and-finish tools share one answer, described once for the set.
        expect(set === 'plan-and-finish' ? underSet : section, `${tool.name}'s answer field \`${field}\` is named`).toContain(`\`${field}\``);
      }
    }
  });

  it('describes the argument every tool takes once, under "Sessions and answers"', () => {
    const tools = [...listed.values()].flat();
    const everywhere = Object.keys(tools[0]!.inputSchema.properties ?? {}).filter((name) => tools.every((tool) => name in (tool.inputSchema.properties ?? {})));
    expect(everywhere).toEqual([...EVERY_TOOLS_ARGUMENTS]);
    const from = DOC.indexOf('### Sessions and answers');
    const shared = DOC.slice(from, DOC.indexOf('\n## ', from));
    for (const argument of EVERY_TOOLS_ARGUMENTS) expect(shared).toContain(`**\`${argument}\`**`);
    for (const field of EVERY_TOOLS_ANSWER_FIELDS) {
      expect(tools.every((tool) => field in (tool.outputSchema?.properties ?? {}))).toBe(true);
      expect(shared).toContain(`\`${field}\``);
    }
  });

  it('names no tool that does not exist', () => {
    const existing = [...listed.values()].flat().map((tool) => tool.name);
    expect([...TOOLS.keys()].sort()).toEqual([...new Set(existing)].sort());
  });
});
