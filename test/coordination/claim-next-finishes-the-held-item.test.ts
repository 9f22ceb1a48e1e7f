/**
 * "Mark mine done, give me the next": claimNext with finish (GraphQL) and
 * task_next with done (MCP) settle the item the caller holds and claim the
 * next ready one in one call. The item is recorded DONE once (one history
 * row, one change), what waited for it comes free and can be the next
 * claimed, and when nothing is left the item is still settled and the answer
 * says all done. When the caller's claim was taken over, the call is refused
 * with CLAIMED as updateItem is, and nothing is recorded: not the DONE, not
 * a claim on the next item. Through GraphQL over HTTP and the MCP SDK
 * client, on a real database (SQLite, or PostgreSQL with TEST_POSTGRES_URL).
 */
import { describe, expect, it } from 'vitest';
import { CLAIM_ITEM, CLAIM_NEXT, READ_HISTORY } from '../fixtures/documents.js';
import { CHANGES, readToEnd } from '../fixtures/change-feed.js';
import { freshDomain } from '../fixtures/knowledge.js';
import { serverWithMcp, refusedByTool } from '../fixtures/mcp.js';
import { refusedAndNothingRecorded } from '../fixtures/nothing-recorded.js';
import { startSession } from '../fixtures/sessions.js';
import { createTask, readTask } from '../fixtures/tasks.js';

const { server, mcp: agent } = serverWithMcp({ tools: 'knowledge-base' });

const FINISH_AND_NEXT = `mutation($domain: String!, $finish: FinishItemInput, $ttlSeconds: Int) {
  claimNext(domain: $domain, finish: $finish, ttlSeconds: $ttlSeconds) { id text claim { session { id } } }
}`;
const DEPENDS = `mutation($input: AddTaskNoteInput!) { addTaskNote(input: $input) { id } }`;

interface HistoryRow { action: string; sessionId: string | null; changes: { itemId: string; kind: string; from: string | null; to: string | null }[] }

async function doneRows(taskId: string): Promise<{ itemId: string; sessionId: string | null }[]> {
  const rows: HistoryRow[] = (await server.ok(READ_HISTORY, { id: taskId, first: 200 })).task.history.nodes;
  return rows.flatMap((row) => row.changes.filter((change) => change.kind === 'STATE' && change.to === 'DONE').map((change) => ({ itemId: change.itemId, sessionId: row.sessionId })));
}

async function leasesPass(...expiries: string[]): Promise<void> {
  const last = Math.max(...expiries.map((at) => Date.parse(at)));
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, last - Date.now()) + 250));
}

describe('claimNext with finish', () => {
  it('settles the held item and claims the next, what waited for it included; DONE is recorded once; at the end it settles and answers null', async () => {
    const domain = freshDomain('finish');
    const { task, items: [schema, handler] } = await createTask(server, ['Add the refunds table', 'Write the refund handler'], { domain });
    // The handler waits for the table: only finishing the table makes it ready.
    await server.ok(DEPENDS, { input: {
      taskId: task.id, title: 'Handler after table', items: [handler.id],
      brief: { goal: 'Refunds.', context: 'Billing.', steps: 'Write it.', pitfalls: 'None.', doneWhen: 'Merged.', dependsOn: [{ item: schema.id }] },
    } });
    const worker = await startSession(server);
    expect((await server.ok(CLAIM_NEXT, { domain }, { session: worker })).claimNext.id).toBe(schema.id);
    const { cursor } = await readToEnd((query, variables) => server.ok(query, variables), null, null, 200);

    const next = (await server.ok(FINISH_AND_NEXT, { domain, finish: { id: schema.id, comment: 'Table added.' } }, { session: worker })).claimNext;
    expect(next).toMatchObject({ id: handler.id, claim: { session: { id: worker } } });
    const logged = (await server.ok(CHANGES, { after: cursor, first: 50 })).changes.nodes;
    expect(logged.map((change: { action: string; itemId: string }) => [change.action, change.itemId])).toEqual([['ITEM_STATE', schema.id], ['ITEM_CLAIMED', handler.id]]);

    // The last one: settled, nothing left to claim.
    expect((await server.ok(FINISH_AND_NEXT, { domain, finish: { id: handler.id } }, { session: worker })).claimNext).toBeNull();
    const after = await readTask(server, task.id);
    expect(after.items.nodes.map((item) => [item.id, item.state, item.note])).toEqual([[schema.id, 'DONE', 'Table added.'], [handler.id, 'DONE', null]]);
    expect(await doneRows(task.id)).toEqual([{ itemId: schema.id, sessionId: worker }, { itemId: handler.id, sessionId: worker }]);
    // Its claims ended with the DONEs: the session holds none.
    expect((await server.ok(`query($id: ID!) { session(id: $id) { claims { id } } }`, { id: worker })).session.claims).toEqual([]);
  });

  it('is refused with CLAIMED when the caller\'s claim was taken over, recording nothing and claiming nothing; only the new holder is told DONE', async () => {
    const domain = freshDomain('finish-fenced');
    const { task, items: [taken, spare] } = await createTask(server, ['Reconcile the ledger', 'Close the month'], { domain });
    const [late, taker] = [await startSession(server), await startSession(server)];
    const mine = (await server.ok(CLAIM_ITEM, { input: { id: taken.id, ttlSeconds: 1 } }, { session: late })).claimItem;
    await leasesPass(mine.claim.expiresAt);
    expect((await server.ok(CLAIM_NEXT, { domain }, { session: taker })).claimNext.id).toBe(taken.id);

    // The late holder's finish: refused, and the spare item stays unclaimed (the whole state is unchanged).
    const refused = await refusedAndNothingRecorded(server, 'CLAIMED', FINISH_AND_NEXT, { domain, finish: { id: taken.id } }, { session: late });
    expect(refused).toContain(`lapsed and the work was taken over: session ${taker} holds it`);
    expect((await server.ok(`query($domain: String!) { ready(domain: $domain) { id } }`, { domain })).ready).toEqual([{ id: spare.id }]);

    expect((await server.ok(FINISH_AND_NEXT, { domain, finish: { id: taken.id } }, { session: taker })).claimNext).toMatchObject({ id: spare.id, claim: { session: { id: taker } } });
    expect(await doneRows(task.id)).toEqual([{ itemId: taken.id, sessionId: taker }]);
  });

  it('settles only to DONE or DROPPED: another state is BAD_USER_INPUT and records nothing', async () => {
    const domain = freshDomain('finish-state');
    const { items: [item] } = await createTask(server, ['Draft the runbook'], { domain });
    const worker = await startSession(server);
    await server.ok(CLAIM_NEXT, { domain }, { session: worker });
    const message = await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', FINISH_AND_NEXT, { domain, finish: { id: item.id, state: 'BLOCKED' } }, { session: worker });
    expect(message).toContain('DONE or DROPPED');
    expect((await server.ok(FINISH_AND_NEXT, { domain, finish: { id: item.id, state: 'DROPPED', comment: 'Not needed.' } }, { session: worker })).claimNext).toBeNull();
  });
});

describe('task_next with done', () => {
  it('marks the held item done and claims the next in one call; at the end it marks it done and says all done', async () => {
    const domain = freshDomain('next-done');
    const { task, items: [first, second] } = await createTask(server, ['Add the refunds table', 'Write the refund email'], { domain });
    const self = await agent.sessionId();
    const taken = await agent.ok('task_next', { domain });
    expect(taken.data).toMatchObject({ outcome: 'claimed', item: { id: first.id } });

    const next = await agent.ok('task_next', { domain, done: first.id });
    expect(next.text.startsWith(`Marked item ${first.id} "Add the refunds table" done.`)).toBe(true);
    expect(next.data).toMatchObject({ outcome: 'claimed', item: { id: second.id }, claim: { session: self } });
    // The task is shown as this call's write left it: the item it just marked done counts as done.
    expect(next.text.split('\n').find((line) => line.startsWith(`Task ${task.id} "`))).toContain(', 1/2 done.');

    const end = await agent.ok('task_next', { domain, done: second.id });
    expect(end.text.startsWith(`Marked item ${second.id} "Write the refund email" done.`)).toBe(true);
    expect(end.data).toMatchObject({ outcome: 'all_done', item: null });
    expect(await doneRows(task.id)).toEqual([{ itemId: first.id, sessionId: self }, { itemId: second.id, sessionId: self }]);
  });

  it('is refused when the agent\'s claim was taken over, and records and claims nothing', async () => {
    const domain = freshDomain('next-done-fenced');
    const { items: [held, spare] } = await createTask(server, ['Rotate the keys', 'Audit the keys'], { domain });
    const taken = await agent.ok('task_next', { domain, ttl_seconds: 1 });
    expect(taken.data.item.id).toBe(held.id);
    await leasesPass(taken.data.claim.expires_at);
    const other = await startSession(server);
    expect((await server.ok(CLAIM_NEXT, { domain }, { session: other })).claimNext.id).toBe(held.id);

    const text = await refusedByTool(server, agent, 'task_next', { domain, done: held.id });
    expect(text).toContain(`session ${other}`);
    expect((await server.ok(`query($domain: String!) { ready(domain: $domain) { id } }`, { domain })).ready).toEqual([{ id: spare.id }]);
  });
});
