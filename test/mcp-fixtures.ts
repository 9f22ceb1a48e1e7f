/**
 * What the MCP tests share: an SDK Client connected to the tools over the
 * SDK's in-memory transport (the same services the started test server
 * uses), and the checks a refusal test ends with.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import { createMcpServer } from '../src/mcp/mcp-server.js';
import { parseToolSets } from '../src/mcp/tool-sets.js';
import type { TestServer } from './harness.js';
import { databaseState } from './nothing-recorded.js';

export interface McpTestClient {
  client: Client;
  /** Calls a tool; returns its result as the SDK hands it over. */
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  /** Calls a tool that must answer, and returns its text and structured content. */
  ok(name: string, args?: Record<string, unknown>): Promise<{ text: string; data: any }>;
  /** The taskbase session behind this MCP session. */
  sessionId(): Promise<string | null>;
  close(): Promise<void>;
}

export async function connectMcp(
  server: TestServer,
  options: { tools?: string; sessionId?: string; parentId?: string; oneActive?: boolean; access?: 'read' | 'write' } = {},
): Promise<McpTestClient> {
  const { server: mcp, session } = createMcpServer(server.app.services, server.app.logger, {
    selection: parseToolSets(options.tools),
    access: options.access ?? 'write',
    session: { sessionId: options.sessionId ?? null, parentId: options.parentId ?? null, oneActive: options.oneActive ?? false },
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await mcp.connect(serverSide);
  const client = new Client({ name: 'taskbase-test', version: '1.0.0' });
  await client.connect(clientSide);
  const call = async (name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult;
  return {
    client,
    call,
    ok: async (name, args) => {
      const result = await call(name, args);
      const text = textOf(result);
      if (result.isError) throw new Error(`${name} refused: ${text}`);
      return { text, data: result.structuredContent };
    },
    sessionId: () => session.id(),
    close: async () => {
      await client.close();
      await mcp.close();
    },
  };
}

export function textOf(result: CallToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

/** Calls a tool that must be refused: an isError result starting "Error: ", with not one row changed. Returns the text. */
export async function refusedByTool(server: TestServer, mcp: McpTestClient, name: string, args: Record<string, unknown>): Promise<string> {
  await mcp.sessionId().catch(() => null);
  const before = await databaseState(server);
  const result = await mcp.call(name, args);
  const text = textOf(result);
  expect(result.isError, text).toBe(true);
  expect(text).toMatch(/^Error: /);
  expect(text).not.toMatch(/SELECT|INSERT|UPDATE "|SQLITE|at .*\.js:\d+|QueryFailedError/);
  expect(await databaseState(server), `${name} refused but changed a row`).toEqual(before);
  return text;
}
