import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOL_SETS, type ToolSet } from '../../src/mcp/tool-sets.js';
import { startTestServer, type TestServer } from '../harness.js';
import { connectMcp } from '../fixtures/mcp.js';

/**
 * What a model reads of each tool set before its first call stays small: the
 * bytes of every tool's name, description and input schema (as tools/list
 * gives them through the MCP SDK's client) stay within the set's budget, and
 * session_key, which every tool takes, is described once, in the server's
 * instructions, not on every tool. `node scripts/mcp-sessions.mjs` prints the
 * same figures and a 20-call session's.
 */
const BUDGET: Record<ToolSet, number> = {
  'whole-list': 1_400,
  'step-ops': 1_600,
  'plan-and-finish': 3_400,
  'knowledge-base': 12_600,
};

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

describe('tool definitions a model reads', () => {
  it.each([...TOOL_SETS])('%s: name + description + inputSchema stay within the budget, session_key described once', async (set) => {
    const mcp = await connectMcp(server, { tools: set });
    try {
      const { tools } = await mcp.client.listTools();
      const bytes = tools.reduce((sum, tool) => sum + Buffer.byteLength(JSON.stringify({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema })), 0);
      expect(bytes, `${set}'s definitions are ${bytes} bytes`).toBeLessThanOrEqual(BUDGET[set]);
      for (const tool of tools) {
        expect(tool.inputSchema.properties?.session_key, `${tool.name} takes session_key`).toBeDefined();
        expect(JSON.stringify(tool.inputSchema.properties?.session_key), `${tool.name} describes session_key again`).not.toContain('description');
      }
      expect(mcp.client.getInstructions()).toMatch(/session_key: this chat's stable key/);
    } finally {
      await mcp.close();
    }
  });
});
