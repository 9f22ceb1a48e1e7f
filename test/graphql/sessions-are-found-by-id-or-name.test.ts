/**
 * Query.sessions(search): the sessions list's one search box finds a session
 * by the start of its id or by words of its name (given to startSession,
 * the MCP client's clientInfo, or its first plan's first step), case-insensitively, page by page, beside the
 * finished filter; a search no name is that long is refused; and a database
 * whose sessions were named before the words were kept finds them once
 * migrated.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataSourceOptions } from '../../src/db/data-source.js';
import { MIGRATIONS } from '../../src/db/migrations/index.js';
import { SessionPresetsAndNameWords1764580000000 } from '../../src/db/migrations/1764580000000-session-presets-and-name-words.js';
import { startTestServer, testDatabase, type TestServer } from '../harness.js';
import { FINISH_SESSION, WRITE_TODOS } from '../fixtures/documents.js';
import { databaseState } from '../fixtures/nothing-recorded.js';

const SESSIONS = `query($first: Int, $after: String, $finished: Boolean, $search: String) {
  sessions(first: $first, after: $after, finished: $finished, search: $search) { totalCount pageInfo { hasNextPage endCursor } nodes { id name } } }`;
const START = 'mutation($input: StartSessionInput) { startSession(input: $input) { id } }';

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

async function named(name: string | null, parentId?: string): Promise<string> {
  return (await server.ok(START, { input: { name, parentId } })).startSession.id;
}

/** The names of every session a search finds, read page by page (`first` at a time), with the total each page reports. */
async function found(search: string | null, options: { first?: number; finished?: boolean } = {}): Promise<{ names: (string | null)[]; totals: number[] }> {
  const names: (string | null)[] = [];
  const totals: number[] = [];
  let after: string | null = null;
  for (;;) {
    const page: any = (await server.ok(SESSIONS, { search, after, first: options.first ?? 50, finished: options.finished ?? null })).sessions;
    names.push(...page.nodes.map((node: { name: string | null }) => node.name));
    totals.push(page.totalCount);
    if (!page.pageInfo.hasNextPage) return { names, totals };
    after = page.pageInfo.endCursor;
  }
}

describe('Query.sessions(search)', () => {
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    for (const name of ['Refund worker 7', 'refund-auditor', 'Nightly REFUNDS sweep', 'Überprüfung der Tests', 'Docs writer']) ids[name] = await named(name);
    ids.unnamed = await named(null);
    // A helper is listed under its parent, not in the list: its name finds nothing there.
    await named('Refund helper', ids['Docs writer']);
    // An MCP client's clientInfo names its session.
    const client = new Client({ name: 'refund-bot', title: 'Refund Bot', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp?tools=step-ops&structured=1', server.url)));
    ids['Refund Bot'] = ((await client.callTool({ name: 'todo', arguments: { op: 'view' } })).structuredContent as { sessionId: string }).sessionId;
    await client.close();
    await server.ok(WRITE_TODOS, { todos: [{ content: 'Sweep', status: 'DONE' }] }, { session: ids['Nightly REFUNDS sweep'] });
    await server.ok(FINISH_SESSION, {}, { session: ids['Nightly REFUNDS sweep'] });
  });

  // Sessions started within one millisecond are in id order, so these compare as sets; the paging test holds the order.
  const names = async (search: string, options: { finished?: boolean } = {}) => (await found(search, options)).names.sort();

  it('finds the sessions with a name word starting with each word of the search, in any case', async () => {
    expect(await names('refund')).toEqual(['Nightly REFUNDS sweep', 'Refund Bot', 'Refund worker 7', 'refund-auditor']);
    expect(await names('REFUND Wor'), 'every word must start a word of the name').toEqual(['Refund worker 7']);
    expect(await names('worker'), 'a word anywhere in the name').toEqual(['Refund worker 7']);
    expect(await names('auditor refund'), 'in any order').toEqual(['refund-auditor']);
    expect(await names('überprüf'), 'letters beyond ASCII, case folded').toEqual(['Überprüfung der Tests']);
    expect(await names('ÜBERPRÜFUNG')).toEqual(['Überprüfung der Tests']);
    expect(await names('und'), 'the middle of a word is not the start of one').toEqual([]);
    expect(await names('refund helper'), 'helpers are not in the list').toEqual([]);
  });

  it('finds a session by the start of its id through the same search, in either case', async () => {
    const id = ids.unnamed;
    expect((await server.ok(SESSIONS, { search: id.slice(0, 13).toUpperCase() })).sessions.nodes.map((node: { id: string }) => node.id)).toEqual([id]);
    expect((await server.ok(SESSIONS, { search: `  ${id}  ` })).sessions.totalCount).toBe(1);
  });

  it('pages a search to its end, keeps the finished filter beside it, and reads LIKE wildcards as no match', async () => {
    const paged = await found('refund', { first: 1 });
    expect(paged.names).toEqual((await found('refund')).names);
    expect(new Set(paged.totals)).toEqual(new Set([4]));
    expect(await names('refund', { finished: true })).toEqual(['Nightly REFUNDS sweep']);
    expect(await names('refund', { finished: false })).toEqual(['Refund Bot', 'Refund worker 7', 'refund-auditor']);
    for (const wildcard of ['%', '_', '-', '%_%']) expect(await names(wildcard), wildcard).toEqual([]);
    expect((await found('   ')).names, 'a blank search filters nothing').toHaveLength(7);
  });

  it('names a session started without a name by the first step of its first plan, keeps that name, and finds it by it', async () => {
    const id = await named(null);
    await server.ok(WRITE_TODOS, { todos: [{ content: 'Triage the chargeback alerts', status: 'IN_PROGRESS' }, { content: 'Write it up', status: 'PENDING' }] }, { session: id });
    // A later list with another first step does not rename it: the list and the search go on calling it what it set out to do.
    await server.ok(WRITE_TODOS, { todos: [{ content: 'Write it up', status: 'IN_PROGRESS' }] }, { session: id });
    expect((await found('chargeback alerts')).names).toEqual(['Triage the chargeback alerts']);
    expect((await found('write it')).names).not.toContain('Write it up');
    const read: any = await server.ok('query($id: ID!) { session(id: $id) { name } }', { id });
    expect(read.session.name).toBe('Triage the chargeback alerts');
  });

  it('refuses a search longer than any name, or of more words than it looks up, with what to send, recording nothing', async () => {
    const before = await databaseState(server);
    const long = await server.refused(SESSIONS, { search: 'a'.repeat(121) });
    expect(long).toEqual({ code: 'TOO_LARGE', message: expect.stringContaining('search is 121 characters; send at most 120') });
    const wordy = await server.refused(SESSIONS, { search: 'a b c d e f g h i' });
    expect(wordy).toEqual({ code: 'TOO_LARGE', message: expect.stringContaining('search has 9 words; send at most 8') });
    expect(await databaseState(server)).toEqual(before);
  });
});

describe('a database whose sessions were named before their words were kept', () => {
  it('finds them by name once migrated, and reads their tool set from their rules', async () => {
    const { file, databaseUrl } = await testDatabase();
    const old = new DataSource({ ...dataSourceOptions(databaseUrl, 'writer'), migrations: MIGRATIONS.slice(0, MIGRATIONS.indexOf(SessionPresetsAndNameWords1764580000000)) } as never);
    await old.initialize();
    await old.runMigrations();
    const now = new Date().toISOString();
    const stepOps = JSON.stringify({ oneActive: false, noteRequiredFor: ['DONE'], minItems: 0, maxItems: 200, maxTextLength: 500, maxNoteLength: 20000, planOnce: false });
    await old.query(`INSERT INTO "sessions" ("id", "rules", "planStanding", "turn", "createdAt", "name") VALUES ('old-1', '${stepOps}', FALSE, 0, '${now}', 'Legacy importer, part 2'), ('old-2', '{}', FALSE, 0, '${now}', NULL)`);
    await old.destroy();

    const migrated = await startTestServer({ file });
    try {
      const search = async (text: string) => (await migrated.ok(SESSIONS, { search: text })).sessions.nodes.map((node: { id: string }) => node.id);
      expect(await search('legacy PART')).toEqual(['old-1']);
      expect(await search('importer 2')).toEqual(['old-1']);
      const presets = await migrated.ok('{ a: session(id: "old-1") { preset } b: session(id: "old-2") { preset } }');
      expect(presets).toEqual({ a: { preset: 'STEP_OPS' }, b: { preset: 'WHOLE_LIST' } });
    } finally {
      await migrated.close();
    }
  });
});
