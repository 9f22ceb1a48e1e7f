/**
 * A query asked again with nothing committed since gets the answer it got,
 * sent as it was: one statement (the committed version, which reads no
 * table), the same bytes. Whoever commits (this server's mutation, another
 * connection) the next answer is read again. Not kept: a request with a
 * session (its reads record the domains it names), an answer showing a live
 * claim (its expiry commits nothing), and answers with errors. Each set of
 * variables is its own answer. On SQLite and on PostgreSQL.
 */
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataSourceOptions } from '../../src/db/data-source.js';
import { FIRST_PAGE, TASK_OPENED } from '../../web/src/dashboard-documents.mjs';
import { startTestServer, type TestServer } from '../harness.js';
import { CLAIM_ITEM, UPDATE_ITEM } from '../fixtures/documents.js';
import { createTask } from '../fixtures/tasks.js';
import { startSession } from '../fixtures/sessions.js';

const VERSION = /PRAGMA data_version|pg_current_snapshot/;
const MUST_READ = `query($domain: String!) { mustRead(domain: $domain) { id title state } }`;

let server: TestServer;
let direct: DataSource;
let statements: string[] = [];
/** Every statement, the writer's too. */
let everything: string[] = [];
let task: { id: string; items: string[] };
beforeAll(async () => {
  server = await startTestServer({ onReadQuery: (sql) => { statements.push(sql); }, onQuery: (sql) => { everything.push(sql); } });
  const created = await createTask(server, ['First step', 'Second step', 'Third step'], { title: 'Kept answers', domain: 'keptanswers' });
  task = { id: created.task.id, items: created.items.map((item) => item.id) };
  direct = new DataSource(dataSourceOptions(server.databaseUrl, 'writer'));
  await direct.initialize();
});
afterAll(async () => {
  await direct?.destroy();
  await server?.close();
});

const opened = () => ({ id: task.id, deleted: false, first: FIRST_PAGE, after: null });

/** One request: its answer's text as sent, and the statements it read. */
async function ask(query: string, variables: Record<string, unknown>, session?: string): Promise<{ text: string; sent: string[] }> {
  statements = [];
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(session ? { 'x-session-id': session } : {}) };
  const response = await fetch(server.url, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  expect(text).not.toContain('"errors"');
  return { text, sent: statements };
}

/**
 * Asked until it is answered from what was kept (the query is known and compiled after a request or two; on
 * PostgreSQL another test file's commit moves the cluster's snapshot too, so a miss waits a moment for a quiet one
 * before asking again): null when it never is.
 */
async function askUntilKept(query: string, variables: Record<string, unknown>, session?: string, tries = 30) {
  for (let i = 0; i < tries; i += 1) {
    const answer = await ask(query, variables, session);
    if (answer.sent.length === 1) return answer;
    if (i >= 2) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return null;
}

const stateOf = (text: string, itemId: string): string | undefined =>
  (JSON.parse(text).data.task.items.nodes as { id: string; state: string }[]).find((item) => item.id === itemId)?.state;

describe('answers kept until something commits', () => {
  it("answers the dashboard's read of a task again from what it kept: the same bytes, one statement, which reads no table", async () => {
    const first = await ask(TASK_OPENED, opened());
    const kept = await askUntilKept(TASK_OPENED, opened());
    expect(kept).not.toBeNull();
    expect(kept!.text).toBe(first.text);
    expect(kept!.sent[0]).toMatch(VERSION);
  });

  it('keeps each set of variables apart', async () => {
    const all = await ask(TASK_OPENED, opened());
    const one = await ask(TASK_OPENED, { ...opened(), first: 1 });
    expect(JSON.parse(all.text).data.task.items.nodes).toHaveLength(3);
    expect(JSON.parse(one.text).data.task.items.nodes).toHaveLength(1);
    expect((await askUntilKept(TASK_OPENED, { ...opened(), first: 1 }))!.text).toBe(one.text);
    // A variable the query does not declare changes nothing, so it is no answer of its own: what was kept answers,
    // at the first ask. On PostgreSQL another test file's commit may move the cluster's snapshot between the kept
    // answer and that ask: then it is tried again, each time padded with a value never sent before (an answer kept
    // per padding would miss every first ask).
    let padded = { text: '', sent: [] as string[] };
    for (let round = 0; round < 20; round += 1) {
      await askUntilKept(TASK_OPENED, { ...opened(), first: 1 });
      padded = await ask(TASK_OPENED, { ...opened(), first: 1, unused: String(round).padEnd(10_000, 'x') });
      if (padded.sent.length === 1) break;
    }
    expect(padded.text).toBe(one.text);
    expect(padded.sent).toHaveLength(1);
  });

  it("answers this server's own mutation at once", async () => {
    await askUntilKept(TASK_OPENED, opened());
    await server.ok(UPDATE_ITEM, { input: { id: task.items[0], state: 'DONE' } });
    const after = await ask(TASK_OPENED, opened());
    expect(stateOf(after.text, task.items[0]!)).toBe('DONE');
    expect(after.sent.length).toBeGreaterThan(1);
  });

  it('answers what another connection committed, and not what it has not yet', async () => {
    const before = await askUntilKept(TASK_OPENED, opened());
    expect(before).not.toBeNull();
    const runner = direct.createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction();
      await runner.query(`UPDATE "items" SET "text" = 'Renamed elsewhere' WHERE "id" = ${Number(task.items[1])}`);
      expect((await ask(TASK_OPENED, opened())).text).toBe(before!.text);
      await runner.commitTransaction();
    } finally {
      await runner.release();
    }
    expect((await ask(TASK_OPENED, opened())).text).toContain('Renamed elsewhere');
  });

  it('runs the query again for a request with a session: mustRead records the domain the session named', async () => {
    const session = await startSession(server);
    for (let i = 0; i < 4; i += 1) {
      everything = [];
      // A session's read records what it named, so its whole answer is never kept (its reads may be, until a commit).
      const answer = await ask(MUST_READ, { domain: 'keptanswers' }, session);
      expect(JSON.parse(answer.text).errors).toBeUndefined();
    }
    // ...and the domain is recorded once: the process remembers what it committed and does not insert it again.
    const recorded = await server.app.services.db.reader.query(
      `SELECT COUNT(*) AS "n" FROM "session_domains" WHERE "sessionId" = ${server.app.services.db.kind === 'postgres' ? '$1' : '?'} AND "domain" = 'keptanswers'`, [session]);
    expect(Number(recorded[0].n)).toBe(1);
    // Without a session the same query is kept.
    expect(await askUntilKept(MUST_READ, { domain: 'keptanswers' })).not.toBeNull();
  });

  it('reads again while the answer shows a live claim, and shows the item free once the claim has expired', async () => {
    const agent = await startSession(server);
    const claimed = (await server.ok(CLAIM_ITEM, { input: { id: task.items[2], ttlSeconds: 10 } }, { session: agent })).claimItem;
    expect(claimed.claim).not.toBeNull();
    const claimOf = (text: string) => (JSON.parse(text).data.task.items.nodes as { id: string; claim: unknown }[]).find((item) => item.id === task.items[2])?.claim;
    const during = await ask(TASK_OPENED, opened());
    expect(claimOf(during.text)).not.toBeNull();
    expect(await askUntilKept(TASK_OPENED, opened(), undefined, 4)).toBeNull();
    const expiresAt = Date.parse(claimed.claim.expiresAt);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now()) + 500));
    expect(claimOf((await ask(TASK_OPENED, opened())).text)).toBeNull();
  }, 20_000);
});

describe('TASKBASE_KEEP_READS=off', () => {
  let off: TestServer;
  let sent: string[] = [];
  beforeAll(async () => {
    off = await startTestServer({ env: { TASKBASE_KEEP_READS: 'off' }, onReadQuery: (sql) => { sent.push(sql); } });
    await createTask(off, ['Only step'], { title: 'Read in full', domain: 'keptoff' });
  });
  afterAll(async () => { await off?.close(); });

  it('reads every answer in full, every time, with no statement asking what was committed', async () => {
    const counts: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      sent = [];
      await off.ok(MUST_READ, { domain: 'keptoff' });
      counts.push(sent.length);
      expect(sent.some((sql) => VERSION.test(sql))).toBe(false);
      expect(sent.some((sql) => sql.includes('"memories"'))).toBe(true);
    }
    expect(new Set(counts).size).toBe(1);
  });
});
