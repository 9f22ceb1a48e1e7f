/**
 * plan-and-finish's finish, called through the MCP SDK's client over HTTP,
 * answers with the list its own write checked: finishSession returns the
 * plan's items from the transaction that finished, so the tool does not read
 * the plan again on the read connection, and the list it shows is the one that
 * was found settled.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';

let reads = 0;
let server: TestServer;
let client: Client;
beforeAll(async () => {
  server = await startTestServer({ onReadQuery: () => { reads += 1; } });
  client = new Client({ name: 'finish-from-its-write', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp?tools=plan-and-finish&structured=1', server.app.server.url)));
});
afterAll(async () => {
  await client?.close();
  await server?.close();
});

async function tool(name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  return { text: (result.content[0] as { text: string }).text, data: result.structuredContent as any };
}

it('finish shows the settled list without reading it again after the write', { timeout: 60_000 }, async () => {
  await tool('plan_tasks', { tasks: ['Reproduce the crash', 'Fix the parser', 'Run the suite'] });
  await tool('update_task', { task_id: 1, status: 'done' });
  await tool('update_task', { task_id: 2, status: 'dropped', note: 'The parser was fine; the input was wrong.' });
  await tool('update_task', { task_id: 3, status: 'done' });
  reads = 0;
  const finished = await tool('finish', {});
  const readsDuringFinish = reads;
  expect(finished.data.summary).toBe('3 tasks: 2 done, 1 dropped.');
  expect(finished.data.tasks.map((task: { id: number; status: string }) => `${task.id} ${task.status}`)).toEqual(['1 done', '2 dropped', '3 done']);
  expect(finished.text).toContain('The parser was fine; the input was wrong.');
  // Everything finish shows came from its write's own transaction: at most the
  // session lookup every call makes reaches the read connection (reading the
  // plan back after the write cost three more, four in all).
  expect(readsDuringFinish).toBeLessThanOrEqual(1);
});
