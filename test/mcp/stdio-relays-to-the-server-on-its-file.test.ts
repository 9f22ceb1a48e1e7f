/**
 * `taskbase mcp` beside a server on the same SQLite file (issue 41 finding 8:
 * two stdio writers cut the server's own writes from 281 to 20 a second):
 * without flags it finds the server from the file's lock and relays its
 * writes through it, saying so on stderr; `--direct` writes the file itself
 * and says that. The built server and the built CLI, driven by the MCP SDK's
 * stdio client. A SQLite file is what this is about, so the test uses one on
 * PostgreSQL runs too (there every writer writes the database itself).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBuiltServer, type BuiltServer } from '../built-server.js';
import { stdioAgent, type StdioAgent } from '../fixtures/change-log.js';
import { tempDatabaseFile } from '../harness.js';
import path from 'node:path';

const TASK = `query($id: ID!) { task(id: $id) { title } }`;

let server: BuiltServer;
let databaseUrl: string;
const agents: StdioAgent[] = [];

beforeAll(async () => {
  const file = tempDatabaseFile();
  databaseUrl = `sqlite:${file}`;
  server = await startBuiltServer(databaseUrl, path.dirname(file));
}, 90_000);

afterAll(async () => {
  await Promise.all(agents.map((agent) => agent.close().catch(() => undefined)));
  server?.process.kill('SIGTERM');
  await server?.exited();
});

async function agent(flags: string[]): Promise<StdioAgent> {
  const started = await stdioAgent(databaseUrl, 'knowledge-base', flags, { TASKBASE_TOKEN: '' });
  agents.push(started);
  return started;
}

/** The task as the server answers it, waiting briefly: a direct write reaches the server through the change log. */
async function titleOnServer(id: string): Promise<string | null> {
  for (let tries = 0; tries < 50; tries += 1) {
    const answer = await server.graphql(TASK, { id });
    if (answer.data?.task) return answer.data.task.title as string;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return null;
}

describe('taskbase mcp beside a server on its SQLite file', () => {
  let relayed: StdioAgent;
  let direct: StdioAgent;

  it('relays its writes through the server by default, and says so on stderr', async () => {
    relayed = await agent([]);
    const created = await relayed.call('task', { title: 'Written through the relay', goal: 'g', items: 'First', domain: 'relay/default' });
    const [line] = relayed.stderr().split('\n').filter((l) => l.startsWith('taskbase mcp: '));
    expect(line).toContain(`relaying to the taskbase server at ${server.base}/graphql running on`);
    expect(line).toContain('test.sqlite');
    expect(line).toContain('--direct');
    expect(await titleOnServer(created.data.uid)).toBe('Written through the relay');
  });

  it('with --direct writes the file itself, and says so', async () => {
    direct = await agent(['--direct']);
    const created = await direct.call('task', { title: 'Written directly', goal: 'g', items: 'First', domain: 'relay/direct' });
    const [line] = direct.stderr().split('\n').filter((l) => l.startsWith('taskbase mcp: '));
    expect(line).toContain('directly');
    expect(line).not.toContain('relaying');
    expect(await titleOnServer(created.data.uid)).toBe('Written directly');
  });

  it('the relayed process needs the server, the direct one does not: where each write goes', async () => {
    server.process.kill('SIGTERM');
    await server.exited();
    await expect(relayed.call('task', { title: 'No server to relay to', goal: 'g', items: 'First', domain: 'relay/default' })).rejects.toThrow();
    const written = await direct.call('task', { title: 'Still written directly', goal: 'g', items: 'First', domain: 'relay/direct' });
    expect(written.data.uid).toBeTruthy();
  });
});
