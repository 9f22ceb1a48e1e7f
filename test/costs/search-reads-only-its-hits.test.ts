/**
 * A search costs what its hits cost, not what the collection does: among
 * thousands of memories, the statements search sends are explained on the
 * same database as the planner would run them (no switches). On PostgreSQL
 * the hits come from the GIN index on the vector and each is checked against
 * its memory by primary key, never a scan of memories; on SQLite from the
 * FTS5 index, each memory read by its rowid (or the domain's smaller range
 * read from its index, FTS5 checking each row).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { CREATE_NOTE, SEARCH } from '../fixtures/documents.js';
import { createTask } from '../fixtures/tasks.js';

let captured: { sql: string; parameters: readonly unknown[] }[] = [];
let capturing = false;
let server: TestServer;
const onPostgres = Boolean(process.env.TEST_POSTGRES_URL);
const FILLER = 3000;

beforeAll(async () => {
  server = await startTestServer({ onReadQuery: (sql, parameters) => { if (capturing) captured.push({ sql, parameters: parameters ?? [] }); } });
  await createTask(server, ['Find the zephyrine'], { domain: 'search/plan', title: 'Zephyrine in the title' });
  await server.ok(CREATE_NOTE, { input: { title: 'A note', body: 'The zephyrine is in the body.', domain: 'search/plan/deep' } });
  // Thousands of memories the word is not in, written straight to the tables (the API would take minutes):
  // enough that a plan reading every memory costs more than one reading the word's few.
  const now = new Date().toISOString();
  await server.app.services.db.transaction(async (db) => {
    if (onPostgres) {
      await db.query(`INSERT INTO "memories" ("kind", "title", "domain", "taskState", "createdAt", "updatedAt")
        SELECT 'TASK', 'Filler ' || g, 'search/filler', 'OPEN', $1, $1 FROM generate_series(1, ${FILLER}) g`, [now]);
      await db.query(`INSERT INTO "memory_search" ("memoryId", "document")
        SELECT "id", setweight(to_tsvector('simple', "title"), 'A') FROM "memories" WHERE "domain" = 'search/filler'`);
    } else {
      await db.query(`WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < ${FILLER})
        INSERT INTO "memories" ("kind", "title", "domain", "taskState", "createdAt", "updatedAt")
        SELECT 'TASK', 'Filler ' || n, 'search/filler', 'OPEN', ?, ? FROM g`, [now, now]);
      await db.query(`INSERT INTO "memory_search" (rowid, title, body) SELECT "id", "title", '' FROM "memories" WHERE "domain" = 'search/filler'`);
    }
    await db.query('ANALYZE');
  });
});
afterAll(async () => { await server?.close(); });

/** The plan of one statement as the planner would run it, as lines of text. */
async function planOf(sql: string, parameters: readonly unknown[]): Promise<string> {
  if (!onPostgres) {
    const rows: { detail: string }[] = await server.app.services.db.reader.query(`EXPLAIN QUERY PLAN ${sql}`, [...parameters]);
    return rows.map((row) => row.detail).join('\n');
  }
  const client = new pg.Client({ connectionString: server.databaseUrl });
  await client.connect();
  try {
    const result = await client.query(`EXPLAIN ${sql}`, [...parameters]);
    return result.rows.map((row) => String(row['QUERY PLAN'])).join('\n');
  } finally {
    await client.end();
  }
}

describe(`search on ${onPostgres ? 'PostgreSQL' : 'SQLite'}`, () => {
  for (const [name, variables] of [
    ['a word', { query: 'zephyrine' }],
    ['a prefix, in a domain, of one kind, after a cursor', { query: 'zephyr', domain: 'search/plan', kind: 'TASK', first: 1 }],
  ] as const) {
    it(`reads ${name} from the search index and each hit's memory by its key`, async () => {
      captured = [];
      capturing = true;
      const { search } = await server.ok(SEARCH, variables);
      capturing = false;
      if ('domain' in variables) {
        expect(search.nodes.map((node: { title: string }) => node.title)).toEqual(['Zephyrine in the title']);
        // The cursor's page is the same statement with a keyset: its plan is checked too.
        capturing = true;
        const next = await server.ok(SEARCH, { ...variables, after: search.pageInfo.endCursor });
        capturing = false;
        expect(next.search.nodes).toEqual([]);
      } else {
        expect(search.totalCount).toBe(2);
      }
      const searches = captured.filter((statement) => statement.sql.includes('memory_search'));
      expect(searches.length).toBeGreaterThan(0);
      for (const statement of searches) {
        const plan = await planOf(statement.sql, statement.parameters);
        if (onPostgres) {
          expect(plan, plan).toMatch(/Bitmap Index Scan on idx_memory_search/);
          expect(plan, plan).not.toMatch(/Seq Scan on (memories|memory_search)/);
          expect(plan, plan).not.toMatch(/Hash Join/);
          expect(plan, plan).toMatch(/Index Scan using memories_pkey on memories m/);
        } else {
          // FTS5 answers the words (M: its MATCH); a memory is read by its rowid, or, when the domain's range
          // holds fewer rows than the words' hits (statistics say so), that range drives and FTS5 checks each by rowid (=M).
          expect(plan, plan).toMatch(/SCAN memory_search VIRTUAL TABLE INDEX \d+:=?M/);
          expect(plan, plan).not.toMatch(/^SCAN m\b/m);
          expect(plan, plan).toMatch(/SEARCH m USING (INTEGER PRIMARY KEY|(COVERING )?INDEX idx_memories_\w+ \(domain)/);
        }
      }
    });
  }
});
