/**
 * domains() sums every domain's kept counts into a tree; the server keeps
 * that tree between requests until anything commits, and asks the database
 * first whether anything has (one statement that reads no table). Whoever
 * commits — this server's own mutations, another process on the same
 * database (taskbase mcp over stdio), a connection of its own — the next domains() answers the new
 * counts; a transaction still open elsewhere is not seen until it commits.
 * On SQLite and on PostgreSQL.
 */
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataSourceOptions } from '../../src/db/data-source.js';
import { startTestServer, type TestServer } from '../harness.js';
import { createTask } from '../fixtures/tasks.js';
import { stdioAgent, type StdioAgent } from '../fixtures/change-log.js';

const DOMAINS = '{ domains { path openTasks tasks notes lastActivityAt } }';
const VERSION = /PRAGMA data_version|pg_current_snapshot/;

let server: TestServer;
let agent: StdioAgent | undefined;
let direct: DataSource;
let statements: string[] = [];
beforeAll(async () => {
  server = await startTestServer({ onReadQuery: (sql) => { statements.push(sql); } });
  await createTask(server, ['One', 'Two'], { domain: 'kept/alpha' });
  await createTask(server, ['Three'], { domain: 'kept/beta/deep' });
  direct = new DataSource(dataSourceOptions(server.databaseUrl, 'writer'));
  await direct.initialize();
});
afterAll(async () => {
  await direct?.destroy();
  await agent?.close();
  await server?.close();
});

async function domains(): Promise<{ answer: { path: string; openTasks: number; tasks: number }[]; sent: string[] }> {
  statements = [];
  const { domains: answer } = await server.ok(DOMAINS);
  return { answer, sent: statements };
}

const paths = (answer: { path: string }[]) => answer.map((domain) => domain.path);
const tasksIn = (answer: { path: string; tasks: number }[], path: string) => answer.find((domain) => domain.path === path)?.tasks;

describe('domains() kept until something commits', () => {
  it('answers a second time from what it kept: one statement, which reads no table', async () => {
    const first = await domains();
    expect(paths(first.answer)).toEqual(['kept', 'kept/alpha', 'kept/beta', 'kept/beta/deep']);
    // On PostgreSQL the snapshot is the cluster's: a commit in another test file's database moves it too, and the
    // next read derives again. Of a few reads in a row, one finds the snapshot unmoved since the one before it.
    let second = await domains();
    for (let tries = 1; tries < 10 && second.sent.length > 1; tries += 1) second = await domains();
    expect(second.answer).toEqual(first.answer);
    expect(second.sent).toHaveLength(1);
    expect(second.sent[0]).toMatch(VERSION);
    expect(second.sent[0]).not.toMatch(/domain_counts|memories/);
  });

  it("answers this server's own mutation at once", async () => {
    await domains();
    await createTask(server, ['Four'], { domain: 'kept/alpha' });
    const after = await domains();
    expect(tasksIn(after.answer, 'kept/alpha')).toBe(2);
    expect(tasksIn(after.answer, 'kept')).toBe(3);
    expect(after.sent.some((sql) => /domain_counts/.test(sql))).toBe(true);
  });

  it('answers what another process on the same database wrote (taskbase mcp over stdio)', async () => {
    await domains();
    agent = await stdioAgent(server.databaseUrl);
    await agent.call('task', { title: 'Written over stdio', goal: 'g', items: 'Five', domain: 'kept/gamma' });
    const after = await domains();
    expect(paths(after.answer)).toContain('kept/gamma');
    expect(tasksIn(after.answer, 'kept')).toBe(4);
  });

  it('does not see a transaction open elsewhere until it commits, and then does', async () => {
    const before = await domains();
    const runner = direct.createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction();
      await runner.query(`UPDATE "memories" SET "domain" = 'kept/moved' WHERE "domain" = 'kept/beta/deep'`);
      const during = await domains();
      expect(during.answer).toEqual(before.answer);
      await runner.commitTransaction();
    } finally {
      await runner.release();
    }
    const after = await domains();
    expect(paths(after.answer)).toContain('kept/moved');
    expect(paths(after.answer)).not.toContain('kept/beta/deep');
    expect(tasksIn(after.answer, 'kept')).toBe(4);
  });
});
