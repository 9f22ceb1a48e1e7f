/**
 * Session.preset: the tool set a session started with, wherever it starts
 * (startSession's preset or rules, an MCP connection's plan set over
 * Streamable HTTP, `taskbase mcp --tools` over stdio), kept when
 * setPlanRules moves its rules elsewhere; a row stored without one reads as
 * the set its rules match best.
 */
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { SET_PLAN_RULES } from '../fixtures/documents.js';

const CLI = path.resolve('dist/src/cli.js');
const START = 'mutation($input: StartSessionInput) { startSession(input: $input) { id preset } }';
const PRESET = 'query($id: ID!) { session(id: $id) { preset rules { noteRequiredFor } } }';

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

const presetOf = async (id: string) => (await server.ok(PRESET, { id })).session.preset as string;

/** The session an MCP client's first plan call starts, as the tool's structured answer names it. */
async function sessionOver(transport: StreamableHTTPClientTransport | StdioClientTransport, tool: string, args: Record<string, unknown>): Promise<string> {
  const client = new Client({ name: 'preset-check', version: '1.0.0' });
  await client.connect(transport);
  try {
    const result = await client.callTool({ name: tool, arguments: args });
    return (result.structuredContent as { sessionId: string }).sessionId;
  } finally {
    await client.close();
  }
}

describe('Session.preset', () => {
  it("is startSession's preset, or the one its rules match best, and stays when setPlanRules moves the rules", async () => {
    const stepOps = (await server.ok(START, { input: { preset: 'STEP_OPS' } })).startSession;
    expect(stepOps.preset).toBe('STEP_OPS');
    await server.ok(SET_PLAN_RULES, { rules: { noteRequiredFor: [] } }, { session: stepOps.id });
    // Its rules are whole-list's now, to the field; it is still the step-ops session it started as.
    expect(await server.ok(PRESET, { id: stepOps.id })).toEqual({ session: { preset: 'STEP_OPS', rules: { noteRequiredFor: [] } } });

    const rulesOnly = { planOnce: true, minItems: 2, maxItems: 20, maxTextLength: 160, maxNoteLength: 400, noteRequiredFor: ['BLOCKED', 'DROPPED'] };
    expect((await server.ok(START, { input: { rules: rulesOnly } })).startSession.preset).toBe('PLAN_AND_FINISH');
    expect((await server.ok(START, { input: null })).startSession.preset).toBe('WHOLE_LIST');
    expect((await server.ok(START, { input: { preset: 'PLAN_AND_FINISH', rules: { noteRequiredFor: [] } } })).startSession.preset).toBe('PLAN_AND_FINISH');
  });

  it("is the plan tool set of the MCP connection that started it, over Streamable HTTP and over the CLI's stdio", async () => {
    const http = (tools: string) => new StreamableHTTPClientTransport(new URL(`/mcp?tools=${tools}&structured=1`, server.url));
    expect(await presetOf(await sessionOver(http('plan-and-finish'), 'plan_tasks', { tasks: ['Read the code', 'Fix it'] }))).toBe('PLAN_AND_FINISH');
    expect(await presetOf(await sessionOver(http('step-ops'), 'todo', { op: 'view' }))).toBe('STEP_OPS');
    const stdio = new StdioClientTransport({
      command: process.execPath, args: [CLI, 'mcp', '--tools', 'step-ops', '--url', server.url, '--structured'], env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent' }, stderr: 'pipe',
    });
    expect(await presetOf(await sessionOver(stdio, 'todo', { op: 'view' }))).toBe('STEP_OPS');
  }, 120_000);

  it('reads as the set its rules match best for a session stored without one', async () => {
    const id = (await server.ok(START, { input: { preset: 'WHOLE_LIST', rules: { noteRequiredFor: ['DONE'] } } })).startSession.id as string;
    expect(await presetOf(id)).toBe('WHOLE_LIST');
    await server.app.services.db.transaction((manager) => manager.query(`UPDATE "sessions" SET "preset" = NULL WHERE "id" = '${id}'`));
    expect(await presetOf(id)).toBe('STEP_OPS');
  });
});
