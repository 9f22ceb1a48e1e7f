/**
 * Memories pages, search pages and mustRead lists are kept between requests
 * until anything commits, as domains() is: a read again while nothing has
 * committed costs one statement (the committed version, which reads no
 * table) and answers the same. Whoever commits — this server's mutations,
 * another connection on the same database — the next read answers the new
 * rows; a transaction still open elsewhere is not seen until it commits.
 * Each kind of read, each set of arguments, is its own answer. On SQLite and
 * on PostgreSQL.
 */
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataSourceOptions } from '../../src/db/data-source.js';
import { startTestServer, type TestServer } from '../harness.js';
import { createTask } from '../fixtures/tasks.js';

const VERSION = /PRAGMA data_version|pg_current_snapshot/;
const MEMORY_TITLES = `query($domain: String!, $first: Int, $after: String) {
  memories(domain: $domain, first: $first, after: $after) { totalCount pageInfo { hasNextPage endCursor } nodes { id title } }
}`;
const SEARCH_TITLES = `query($query: String!, $first: Int) { search(query: $query, first: $first) { totalCount nodes { id title } } }`;
const MUST_READ = `query($domain: String!) { mustRead(domain: $domain) { id title state } }`;

type Read = { query: string; variables: Record<string, unknown> };
const reads: Record<string, Read> = {
  'a memories page': { query: MEMORY_TITLES, variables: { domain: 'keptreads', first: 2 } },
  'a search page': { query: SEARCH_TITLES, variables: { query: 'heliotrope', first: 5 } },
  mustRead: { query: MUST_READ, variables: { domain: 'keptreads' } },
};

let server: TestServer;
let direct: DataSource;
let statements: string[] = [];
beforeAll(async () => {
  server = await startTestServer({ onReadQuery: (sql) => { statements.push(sql); } });
  await createTask(server, ['One'], { title: 'heliotrope first', domain: 'keptreads/alpha' });
  await createTask(server, ['Two'], { title: 'heliotrope second', domain: 'keptreads/beta' });
  await createTask(server, ['Three'], { title: 'heliotrope third', domain: 'keptreads/beta' });
  direct = new DataSource(dataSourceOptions(server.databaseUrl, 'writer'));
  await direct.initialize();
});
afterAll(async () => {
  await direct?.destroy();
  await server?.close();
});

async function read({ query, variables }: Read): Promise<{ answer: Record<string, unknown>; sent: string[] }> {
  statements = [];
  const answer = await server.ok(query, variables);
  return { answer, sent: statements };
}

/**
 * A read again, until one finds nothing committed since the one before it: on PostgreSQL the snapshot is the
 * cluster's, so another test file's commit moves it too.
 */
async function readAgain(which: Read): Promise<{ answer: Record<string, unknown>; sent: string[] }> {
  let again = await read(which);
  for (let tries = 1; tries < 10 && again.sent.length > 1; tries += 1) again = await read(which);
  return again;
}

const titles = (answer: Record<string, unknown>): string[] => {
  const list = (Object.values(answer)[0] as { nodes?: { title: string }[] } | { title: string }[]);
  return (Array.isArray(list) ? list : list.nodes ?? []).map((node) => node.title);
};

describe('memories pages, search pages and mustRead kept until something commits', () => {
  for (const [name, which] of Object.entries(reads)) {
    it(`answers ${name} a second time from what it kept: one statement, which reads no table`, async () => {
      const first = await read(which);
      expect(first.sent.length).toBeGreaterThan(1);
      const second = await readAgain(which);
      expect(second.answer).toEqual(first.answer);
      expect(second.sent).toHaveLength(1);
      expect(second.sent[0]).toMatch(VERSION);
    });
  }

  it('keeps each set of arguments apart: another page size, another scope, another query', async () => {
    const two = await read(reads['a memories page']!);
    const three = await read({ query: MEMORY_TITLES, variables: { domain: 'keptreads', first: 3 } });
    expect(titles(two.answer)).toHaveLength(2);
    expect(titles(three.answer)).toHaveLength(3);
    const beta = await read({ query: MUST_READ, variables: { domain: 'keptreads/beta' } });
    expect(titles(beta.answer).sort()).toEqual(['heliotrope second', 'heliotrope third']);
    const none = await read({ query: SEARCH_TITLES, variables: { query: 'heliotropes nowhere', first: 5 } });
    expect(titles(none.answer)).toEqual([]);
    const after = await read({ query: MEMORY_TITLES, variables: { domain: 'keptreads', first: 2, after: (two.answer.memories as { pageInfo: { endCursor: string } }).pageInfo.endCursor } });
    expect(titles(after.answer)).toEqual(['heliotrope first']);
  });

  it("answers this server's own mutation at once, in every kept read", async () => {
    for (const which of Object.values(reads)) await read(which);
    await createTask(server, ['Four'], { title: 'heliotrope fourth', domain: 'keptreads/alpha' });
    for (const which of Object.values(reads)) {
      const after = await read(which);
      expect(titles(after.answer)).toContain('heliotrope fourth');
      expect(after.sent.length).toBeGreaterThan(1);
    }
  });

  it('does not see a transaction open elsewhere until it commits, and then does', async () => {
    const before = await read(reads.mustRead!);
    const search = await read(reads['a search page']!);
    const runner = direct.createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction();
      await runner.query(`UPDATE "memories" SET "title" = 'heliotrope renamed' WHERE "title" = 'heliotrope first'`);
      expect((await read(reads.mustRead!)).answer).toEqual(before.answer);
      expect((await read(reads['a search page']!)).answer).toEqual(search.answer);
      await runner.commitTransaction();
    } finally {
      await runner.release();
    }
    expect(titles((await read(reads.mustRead!)).answer)).toContain('heliotrope renamed');
    expect(titles((await read(reads['a memories page']!)).answer).concat(titles((await read({ query: MEMORY_TITLES, variables: { domain: 'keptreads/alpha' } })).answer)))
      .toContain('heliotrope renamed');
  });

  it('answers a task closed over another connection: it leaves mustRead', async () => {
    const before = titles((await read(reads.mustRead!)).answer);
    expect(before).toContain('heliotrope second');
    await direct.query(`UPDATE "memories" SET "taskState" = 'COMPLETED' WHERE "title" = 'heliotrope second'`);
    expect(titles((await read(reads.mustRead!)).answer)).not.toContain('heliotrope second');
  });
});
