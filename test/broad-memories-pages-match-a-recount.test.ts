/**
 * A memories page over a broad scope (more domains than a handful, at
 * several depths, with siblings outside it that share its prefix) walks
 * every memory of the scope once, newest first, with kind and status
 * filters and cursors: the ids and the total are exactly what a plain
 * recount of the rows gives. Each page costs the same two statements
 * whether the scope holds one domain or sixteen.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.js';
import { CREATE_NOTE, MEMORIES, UPDATE_ITEM } from './fixtures/documents.js';
import { createTask } from './fixtures/tasks.js';

const ARCHIVE = `mutation($id: ID!) { archiveMemory(id: $id) { id } }`;
const SCOPE = 'broad';
/** 16 domains in scope (the scope itself, 14 leaves, one below a leaf); two outside that sort among them. */
const INSIDE = [SCOPE, ...Array.from({ length: 14 }, (_, i) => `${SCOPE}/d${String(i).padStart(2, '0')}`), `${SCOPE}/d03/deep`];
const OUTSIDE = [`${SCOPE}-v2`, `${SCOPE}x/d00`];

let server: TestServer;
let statements = 0;
beforeAll(async () => {
  server = await startTestServer({ onReadQuery: () => { statements += 1; } });
  // Written round-robin over the domains, so every page mixes many of them; some tasks settled, some notes archived.
  for (let round = 0; round < 3; round += 1) {
    for (const [index, domain] of [...INSIDE, ...OUTSIDE].entries()) {
      const { items } = await createTask(server, ['One', 'Two'], { domain, title: `Task ${round}.${index}` });
      if ((round + index) % 3 === 0) {
        for (const item of items) await server.ok(UPDATE_ITEM, { input: { id: item.id, state: 'DONE' } });
      }
      const note = (await server.ok(CREATE_NOTE, { input: { title: `Note ${round}.${index}`, body: 'Kept.', domain } })).createNote;
      if ((round + index) % 4 === 1) await server.ok(ARCHIVE, { id: note.id });
    }
  }
}, 300_000);
afterAll(async () => { await server?.close(); });

/** The ids (newest first) of the scope's memories that pass the filter, recounted from the rows. */
async function recount(kind: string | null, status: string | null): Promise<string[]> {
  const rows: Record<string, unknown>[] = await server.app.services.db.reader.query(
    `SELECT "id", "domain", "kind", "archived", "taskState", "sessionId" FROM "memories"`,
  );
  return rows
    .filter((row) => row.sessionId === null && typeof row.domain === 'string')
    .filter((row) => row.domain === SCOPE || String(row.domain).startsWith(`${SCOPE}/`))
    .filter((row) => kind === null || row.kind === kind)
    .filter((row) => {
      if (status === null) return true;
      const active = row.kind === 'NOTE' ? !(row.archived === true || row.archived === 1) : row.taskState === 'OPEN';
      return status === 'ACTIVE' ? active : !active;
    })
    .map((row) => Number(row.id))
    .sort((a, b) => b - a)
    .map(String);
}

/** Every page of the scope's memories, `first` at a time: the ids in order, each page's total, and its statements. */
async function walk(domain: string, kind: string | null, status: string | null, first: number) {
  const ids: string[] = [];
  const totals = new Set<number>();
  const costs = new Set<number>();
  let after: string | null = null;
  for (let page = 0; page < 100; page += 1) {
    statements = 0;
    const { memories }: { memories: any } = await server.ok(MEMORIES, { domain, kind, status, first, after });
    costs.add(statements);
    totals.add(memories.totalCount);
    ids.push(...memories.nodes.map((node: { id: string }) => node.id));
    if (!memories.pageInfo.hasNextPage) break;
    after = memories.pageInfo.endCursor;
  }
  return { ids, totals: [...totals], costs: [...costs] };
}

describe('a memories page over 16 domains', () => {
  for (const [kind, status] of [[null, null], ['TASK', null], ['NOTE', null], [null, 'ACTIVE'], [null, 'ARCHIVED'], ['TASK', 'ARCHIVED'], ['NOTE', 'ACTIVE']] as const) {
    it(`walks kind ${kind ?? 'any'}, status ${status ?? 'any'} page by page: the recount's ids in its order, its total on every page`, async () => {
      const expected = await recount(kind, status);
      expect(expected.length).toBeGreaterThan(5);
      const walked = await walk(SCOPE, kind, status, 4);
      expect(walked.ids).toEqual(expected);
      expect(walked.totals).toEqual([expected.length]);
      // The kept counts, then the page: the same two statements on every page.
      expect(walked.costs).toEqual([2]);
    });
  }

  it('costs what a page of one domain costs', async () => {
    const one = await walk(`${SCOPE}/d05`, null, null, 2);
    expect(one.ids).toHaveLength(6);
    expect(one.costs).toEqual([2]);
  });
});
