/**
 * The session lists are read in an index's order on both databases, never
 * by sorting every session: the sessions page (newest top-level sessions
 * first, page by page, with or without the finished filter) and a session's
 * helpers (oldest first, ranked per parent). Each statement these reads send
 * is explained on the same database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { planOf } from '../fixtures/query-plans.js';

const START = 'mutation($input: StartSessionInput) { startSession(input: $input) { id } }';
const SESSIONS = `query($first: Int, $after: String, $finished: Boolean) {
  sessions(first: $first, after: $after, finished: $finished) { pageInfo { endCursor } nodes { id } } }`;
const HELPERS = 'query($id: ID!) { session(id: $id) { children { id } } }';

const postgres = Boolean(process.env.TEST_POSTGRES_URL);
let server: TestServer;
let captured: { sql: string; parameters: readonly unknown[] }[] = [];
let parent = '';
const helpers: string[] = [];

beforeAll(async () => {
  server = await startTestServer({ onReadQuery: (sql, parameters) => { captured.push({ sql, parameters: parameters ?? [] }); } });
  const start = async (parentId?: string) => (await server.ok(START, { input: { parentId } })).startSession.id as string;
  for (let i = 0; i < 4; i += 1) parent = await start();
  for (let i = 0; i < 3; i += 1) helpers.push(await start(parent));
});
afterAll(async () => { await server?.close(); });

/** The statements `query` sends whose SQL `pick` chooses, and what it answered. */
async function statementsOf(query: string, variables: Record<string, unknown>, pick: (sql: string) => boolean) {
  captured = [];
  const data = await server.ok(query, variables);
  const picked = captured.filter((statement) => pick(statement.sql));
  expect(picked.length, `no statement of ${query} was the one looked for`).toBeGreaterThan(0);
  return { data, picked };
}

/** PostgreSQL is asked whether an index answers in order: scans and sorts it could choose over a table this small are off. */
const OFF = ['enable_seqscan', 'enable_bitmapscan', 'enable_sort', 'enable_incremental_sort'];

describe('the sessions page', () => {
  const isPage = (sql: string) => /FROM "sessions" s WHERE .* ORDER BY s\."createdAt" DESC, s\."id" DESC LIMIT/s.test(sql);
  for (const finished of [null, false]) {
    it(`is read newest first along an index, page after page (finished: ${finished})`, async () => {
      const first = await statementsOf(SESSIONS, { first: 2, finished }, isPage);
      const next = await statementsOf(SESSIONS, { first: 2, finished, after: first.data.sessions.pageInfo.endCursor }, isPage);
      expect([...first.data.sessions.nodes, ...next.data.sessions.nodes]).toHaveLength(4);
      for (const { sql, parameters } of [...first.picked, ...next.picked]) {
        const plan = (await planOf(server, sql, parameters, OFF)).join('\n');
        if (postgres) {
          expect(plan, plan).toMatch(/Index Scan (Backward )?using idx_sessions_top_created on sessions/);
          expect(plan, plan).not.toMatch(/Sort/);
        } else {
          expect(plan, plan).toMatch(/USING (COVERING )?INDEX idx_sessions_(top|parent)_created/);
          expect(plan, plan).not.toMatch(/TEMP B-TREE/);
        }
      }
    });
  }
});

describe("a session's helpers", () => {
  it('are ranked per parent in the index order, oldest first', async () => {
    const { data, picked } = await statementsOf(HELPERS, { id: parent }, (sql) => sql.includes('PARTITION BY c."parentId"'));
    expect(data.session.children.map((child: { id: string }) => child.id)).toEqual(helpers);
    for (const { sql, parameters } of picked) {
      const plan = await planOf(server, sql, parameters, OFF);
      const text = plan.join('\n');
      if (postgres) {
        // Below the ranking nothing is sorted: the helpers come from the index already in (parent, createdAt, id) order.
        const window = plan.findIndex((line) => line.includes('WindowAgg'));
        expect(window, text).toBeGreaterThanOrEqual(0);
        expect(plan.slice(window).join('\n'), text).toMatch(/Index (Only )?Scan using idx_sessions_parent_created on sessions/);
        expect(plan.slice(window).join('\n'), text).not.toMatch(/Sort/);
      } else {
        expect(text, text).toMatch(/SEARCH c USING (COVERING )?INDEX idx_sessions_parent_created \(parentId=\?\)/);
        // The ranking's own sort (the statement's last, of the few rows it keeps, may stay).
        expect(text, text).not.toMatch(/TEMP B-TREE FOR LAST \d+ TERMS OF ORDER BY/);
      }
    }
  });
});
