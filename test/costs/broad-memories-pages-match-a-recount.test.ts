/**
 * A memories page over a broad scope (more domains than a handful, at
 * several depths, with siblings outside it that share its prefix) walks
 * every memory of the scope once, newest first, with kind and status
 * filters and cursors: the ids and the total are exactly what a plain
 * recount of the rows gives. Each page costs the same three statements
 * whether the scope holds one domain or sixteen (the committed version, as
 * pages are kept until something commits, then the kept counts and the page). Both ways of reading a page
 * are walked to the end (domain/memories-page-plan.ts): the broad scope, most
 * of the memories, is read in id order; one of its domains, a few among the
 * hundreds of notes elsewhere, by the walk of each domain.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { CREATE_NOTE, MEMORIES, UPDATE_ITEM } from '../fixtures/documents.js';
import { createTask } from '../fixtures/tasks.js';

const ARCHIVE = `mutation($id: ID!) { archiveMemory(id: $id) { id } }`;
const SCOPE = 'broad';
/** Four kind and status filters and none: what each walk is repeated with. */
const FILTERS = [[null, null], ['TASK', null], ['NOTE', null], [null, 'ACTIVE'], [null, 'ARCHIVED'], ['TASK', 'ARCHIVED'], ['NOTE', 'ACTIVE']] as const;
/** 16 domains in scope (the scope itself, 14 leaves, one below a leaf); two outside that sort among them. */
const INSIDE = [SCOPE, ...Array.from({ length: 14 }, (_, i) => `${SCOPE}/d${String(i).padStart(2, '0')}`), `${SCOPE}/d03/deep`];
const OUTSIDE = [`${SCOPE}-v2`, `${SCOPE}x/d00`];
/** Notes far from the scope, so one of its domains holds a few memories among many. */
const ELSEWHERE = 'elsewhere/many';
const ELSEWHERE_NOTES = 600;

let server: TestServer;
let statements = 0;
/** How each statement of a page read its memories: the page's statement is the one that is not the version or the kept counts. */
let plans: string[] = [];
const VERSION = /PRAGMA data_version|pg_current_snapshot/;
const planOf = (sql: string) => (VERSION.test(sql) || sql.includes('"domain_counts"') ? null : sql.includes('o."id" IN (') ? 'EACH_DOMAIN' : 'ID_ORDER');
beforeAll(async () => {
  server = await startTestServer({
    onReadQuery: (sql) => {
      statements += 1;
      const plan = planOf(sql);
      if (plan) plans.push(plan);
    },
  });
  for (let start = 0; start < ELSEWHERE_NOTES; start += 20) {
    await Promise.all(Array.from({ length: 20 }, (_, i) =>
      server.ok(CREATE_NOTE, { input: { title: `Elsewhere ${start + i}`, body: 'Far away.', domain: ELSEWHERE } })));
  }
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
async function recount(kind: string | null, status: string | null, scope = SCOPE): Promise<string[]> {
  const rows: Record<string, unknown>[] = await server.app.services.db.reader.query(
    `SELECT "id", "domain", "kind", "archived", "taskState", "sessionId" FROM "memories"`,
  );
  return rows
    .filter((row) => row.sessionId === null && typeof row.domain === 'string')
    .filter((row) => row.domain === scope || String(row.domain).startsWith(`${scope}/`))
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

/** Every page of the scope's memories, `first` at a time: the ids in order, each page's total, its statements and how it was read. */
async function walk(domain: string, kind: string | null, status: string | null, first: number) {
  const ids: string[] = [];
  const totals = new Set<number>();
  const costs = new Set<number>();
  const read = new Set<string>();
  let after: string | null = null;
  for (let page = 0; page < 100; page += 1) {
    statements = 0;
    plans = [];
    const { memories }: { memories: any } = await server.ok(MEMORIES, { domain, kind, status, first, after });
    costs.add(statements);
    for (const plan of plans) read.add(plan);
    totals.add(memories.totalCount);
    ids.push(...memories.nodes.map((node: { id: string }) => node.id));
    if (!memories.pageInfo.hasNextPage) break;
    after = memories.pageInfo.endCursor;
  }
  return { ids, totals: [...totals], costs: [...costs], plans: [...read] };
}

describe('a memories page over 16 domains, most of the memories', () => {
  for (const [kind, status] of FILTERS) {
    it(`walks kind ${kind ?? 'any'}, status ${status ?? 'any'} page by page in id order: the recount's ids in its order, its total on every page`, async () => {
      const expected = await recount(kind, status);
      expect(expected.length).toBeGreaterThan(5);
      const walked = await walk(SCOPE, kind, status, 4);
      expect(walked.ids).toEqual(expected);
      expect(walked.totals).toEqual([expected.length]);
      // The committed version, the kept counts, then the page: the same three statements on every page.
      expect(walked.costs).toEqual([3]);
      expect(walked.plans).toEqual(['ID_ORDER']);
    });
  }
});

describe('a memories page over one domain, a few among many', () => {
  const DOMAIN = `${SCOPE}/d05`;
  for (const [kind, status] of FILTERS) {
    it(`walks kind ${kind ?? 'any'}, status ${status ?? 'any'} page by page by the domain's own walk: the recount's ids in its order`, async () => {
      const expected = await recount(kind, status, DOMAIN);
      expect(expected.length).toBeGreaterThan(0);
      const walked = await walk(DOMAIN, kind, status, 2);
      expect(walked.ids).toEqual(expected);
      expect(walked.totals).toEqual([expected.length]);
      expect(walked.costs).toEqual([3]);
      expect(walked.plans).toEqual(['EACH_DOMAIN']);
    });
  }
});
