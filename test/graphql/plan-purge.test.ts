/**
 * A plan rewritten whole many times stays small: its oldest deleted steps are
 * purged beyond a cap (100 kept; purging starts past 200), while history
 * still shows every list it had, and a deleted step that anything points at
 * (a comment, a [[#id]] in the plan's text or in a note) is kept.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { PLAN_HISTORY, SET_PLAN, UPDATE_STEP, WRITE_TODOS } from '../fixtures/documents.js';
import { startSession, type HistoryRow } from '../fixtures/sessions.js';

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

const REWRITES = 12;
const STEPS = 100;
const PLAN_OF = `query($id: ID!) { session(id: $id) { plan { id items(first: 100) { totalCount nodes { id number text state } } } } }`;
const HISTORY_PAGE = `query($id: ID!, $after: String) { task(id: $id) { history(first: 200, after: $after) {
  totalCount pageInfo { hasNextPage endCursor } nodes { action items { id text } changes { itemId kind text } }
} } }`;

async function rowsOf(taskId: string): Promise<{ id: number; deleted: boolean }[]> {
  const rows: { id: number | string; deleted: boolean | number }[] = await server.app.services.db.reader.query(
    `SELECT "id", "deleted" FROM "items" WHERE "taskId" = ${Number(taskId)} ORDER BY "id"`,
  );
  return rows.map((row) => ({ id: Number(row.id), deleted: Boolean(row.deleted) }));
}

async function allHistory(taskId: string): Promise<HistoryRow[]> {
  const rows: HistoryRow[] = [];
  let after: string | null = null;
  for (;;) {
    const page: any = (await server.ok(HISTORY_PAGE, { id: taskId, after })).task.history;
    rows.push(...page.nodes);
    if (!page.pageInfo.hasNextPage) return rows;
    after = page.pageInfo.endCursor;
  }
}

const texts = (round: number) => Array.from({ length: STEPS }, (_, i) => `Round ${round} step ${i + 1}`);

describe('a plan rewritten whole again and again', () => {
  it(`${REWRITES} writeTodos of ${STEPS} new texts leave a bounded number of rows, and history keeps every list`, async () => {
    const session = await startSession(server, { rules: { maxItems: 100 } });
    const first = await server.ok(WRITE_TODOS, { todos: texts(1).map((content) => ({ content, status: 'PENDING' })) }, { session });
    const planId: string = first.writeTodos.plan.id;
    const firstIds: string[] = first.writeTodos.plan.items.nodes.map((step: { id: string }) => step.id);

    // Three of the first round's steps are pointed at, each in its own way: a comment on it, a comment citing it, a note elsewhere citing it.
    const commented = await server.gql(
      'mutation($input: UpdateItemInput!) { updateItem(input: $input) { id } }', { input: { id: firstIds[0], comment: 'Looked at this one.' } },
    );
    expect(commented.errors).toBeUndefined();
    const cited = await server.gql('mutation($input: AddCommentInput!) { addComment(input: $input) { id } }', {
      input: { taskId: planId, body: `The dashboard asks about [[#${firstIds[1]}]].` },
    });
    expect(cited.errors).toBeUndefined();
    // A step note citing a step points at it only while the noted step itself is kept.
    await server.ok(UPDATE_STEP, { input: { step: 4, state: 'IN_PROGRESS', note: `Picks up from [[#${firstIds[2]}]].` } }, { session });
    const note = await server.gql('mutation($input: CreateNoteInput!) { createNote(input: $input) { id } }', {
      input: { title: 'Cites a step', body: `The plan once had [[#${firstIds[4]}]].`, domain: 'purge/notes' },
    });
    expect(note.errors).toBeUndefined();

    for (let round = 2; round <= REWRITES; round += 1) {
      await server.ok(WRITE_TODOS, { todos: texts(round).map((content) => ({ content, status: 'PENDING' })) }, { session });
    }
    const rows = await rowsOf(planId);
    const deleted = rows.filter((row) => row.deleted);
    console.log(`plan after ${REWRITES} rewrites of ${STEPS}: ${rows.length} item rows (${deleted.length} deleted); without the purge ${REWRITES * STEPS}`);
    expect(rows.filter((row) => !row.deleted)).toHaveLength(STEPS);
    // At most 200 deleted steps plus the three kept because something points at them.
    expect(deleted.length).toBeLessThanOrEqual(203);
    expect(deleted.length).toBeGreaterThanOrEqual(100);
    // The three pointed-at steps of round 1 are kept; an unremarkable one of round 1 is gone.
    const ids = new Set(rows.map((row) => String(row.id)));
    for (const kept of [firstIds[0], firstIds[1], firstIds[4]]) expect(ids.has(kept), `step ${kept} was purged`).toBe(true);
    expect(ids.has(firstIds[2])).toBe(false);

    // The plan reads as the last list, in order.
    const plan = (await server.ok(PLAN_OF, { id: session })).session.plan;
    expect(plan.items.nodes.map((step: { text: string }) => step.text)).toEqual(texts(REWRITES));
    expect(plan.items.nodes.map((step: { number: number }) => step.number)).toEqual(Array.from({ length: STEPS }, (_, i) => i + 1));

    // History still holds every list the plan had, including the purged steps' texts and their removal.
    const history = (await allHistory(planId)).filter((row) => row.action === 'PLAN_WRITTEN');
    expect(history).toHaveLength(REWRITES);
    expect(history[0].items.map((item) => item.text)).toEqual(texts(1));
    expect(history[1].changes.filter((change) => change.kind === 'REMOVED').map((change) => change.text)).toEqual(texts(1));
    expect(history[1].changes.find((change) => change.itemId === firstIds[2])?.kind).toBe('REMOVED');
  });

  it('after a purge, setPlan (which appends new steps) still lists them in the order sent', async () => {
    const session = await startSession(server, { rules: { maxItems: 100 } });
    for (let round = 1; round <= 3; round += 1) {
      await server.ok(WRITE_TODOS, { todos: texts(round).map((content) => ({ content, status: 'PENDING' })) }, { session });
    }
    const steps = ['Fresh one', 'Fresh two', 'Fresh three'];
    const set = (await server.ok(SET_PLAN, { steps }, { session })).setPlan;
    expect(set.plan.items.nodes.map((step: { text: string }) => step.text)).toEqual(steps);
    const history = (await server.ok(PLAN_HISTORY, { id: set.plan.id })).task.history.nodes;
    expect(history.at(-1).items.map((item: { text: string }) => item.text)).toEqual(steps);
    // 300 deleted steps by now: the purge ran inside this setPlan.
    expect((await rowsOf(set.plan.id)).length).toBeLessThanOrEqual(3 + 200);
  });
});
