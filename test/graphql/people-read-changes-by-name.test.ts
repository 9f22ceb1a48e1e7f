/**
 * What a person steering agents reads, over GraphQL: a task's history with
 * the session's name and filters (by action, by agent) whose rows still carry
 * the list as it stood; a plan titled by its session's name; the activity
 * stream newest first with names and from → to; a person's change to an
 * agent's plan marked unseen until the agent's next MCP call; and a finished
 * session left with a blocked step reading as stuck.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { CLAIM_ITEM, FINISH_SESSION, SET_PLAN, UPDATE_ITEM, UPDATE_STEP } from '../fixtures/documents.js';
import { freshDomain } from '../fixtures/knowledge.js';
import { connectMcp } from '../fixtures/mcp.js';
import { startSession } from '../fixtures/sessions.js';
import { createTask } from '../fixtures/tasks.js';

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

const HISTORY = `query($id: ID!, $first: Int, $after: String, $newestFirst: Boolean, $actions: [String!], $sessionId: ID, $byPerson: Boolean) {
  task(id: $id) { title history(first: $first, after: $after, newestFirst: $newestFirst, actions: $actions, sessionId: $sessionId, byPerson: $byPerson) {
    totalCount pageInfo { hasNextPage endCursor } nodes { id action sessionId session { name } items { text state } changes { kind text from to session { name } } } } } }`;

describe('people read changes by name', () => {
  it('filters a task\'s history by agent and by action, each row with its list as it stood and its session\'s name', async () => {
    const domain = freshDomain('history-names');
    const { task, items: [first, second] } = await createTask(server, ['Write the migration', 'Review the schema'], { domain, title: 'Billing schema' });
    const agent = await startSession(server, { name: 'Migration agent' });
    await server.ok(CLAIM_ITEM, { input: { id: first.id, ttlSeconds: 900 } }, { session: agent });
    // Enough rows that a filtered page lands deep inside delta chains.
    for (let round = 0; round < 12; round += 1) {
      await server.ok(UPDATE_ITEM, { input: { id: first.id, state: round % 2 ? 'PENDING' : 'IN_PROGRESS' } }, { session: agent });
      await server.ok(UPDATE_ITEM, { input: { id: second.id, state: round % 2 ? 'PENDING' : 'BLOCKED', comment: round % 2 ? undefined : `waiting ${round}` } });
    }
    const all = (await server.ok(HISTORY, { id: task.id, first: 200 })).task.history;
    const byAgent = (await server.ok(HISTORY, { id: task.id, first: 5, newestFirst: true, sessionId: agent })).task.history;
    expect(byAgent.totalCount).toBe(13);
    expect(byAgent.nodes.every((row: any) => row.session?.name === 'Migration agent')).toBe(true);
    // Each filtered row's list is the one the unfiltered history holds for that row.
    const listOf = new Map(all.nodes.map((row: any) => [row.id, row.items]));
    for (const row of byAgent.nodes) expect(row.items).toEqual(listOf.get(row.id));
    const older = (await server.ok(HISTORY, { id: task.id, first: 5, newestFirst: true, sessionId: agent, after: byAgent.pageInfo.endCursor })).task.history;
    for (const row of older.nodes) expect(row.items).toEqual(listOf.get(row.id));
    expect(older.nodes.map((row: any) => Number(row.id))).toEqual([...older.nodes.map((row: any) => Number(row.id))].sort((a, b) => b - a));
    expect(Number(older.nodes[0].id)).toBeLessThan(Number(byAgent.nodes.at(-1).id));

    const byPerson = (await server.ok(HISTORY, { id: task.id, first: 50, byPerson: true })).task.history;
    expect(byPerson.nodes.every((row: any) => row.sessionId === null)).toBe(true);
    expect(byPerson.totalCount).toBe(all.nodes.filter((row: any) => row.sessionId === null).length);
    const claims = (await server.ok(HISTORY, { id: task.id, actions: ['ITEM_CLAIMED'] })).task.history;
    expect(claims.totalCount).toBe(1);
    expect(claims.nodes[0].changes[0]).toMatchObject({ kind: 'CLAIMED', session: { name: 'Migration agent' } });
    const refused = await server.refused(HISTORY, { id: task.id, actions: ['NOT_AN_ACTION'] });
    expect(refused.code).toBe('BAD_USER_INPUT');
    expect(refused.message).toContain('ITEM_STATE');
  });

  it('titles a plan by its session\'s name and reads the activity stream newest first, with names and from → to', async () => {
    const domain = freshDomain('activity');
    const { items: [step] } = await createTask(server, ['Ship the release'], { domain, title: 'Release 2.0' });
    const agent = await startSession(server, { name: 'Release agent' });
    await server.ok(UPDATE_ITEM, { input: { id: step.id, state: 'IN_PROGRESS' } }, { session: agent });
    await server.ok(UPDATE_ITEM, { input: { id: step.id, state: 'BLOCKED', comment: 'needs sign-off' } });
    await server.ok(SET_PLAN, { steps: ['Tag the build'] }, { session: agent });
    const plan = (await server.ok(`query($id: ID!) { session(id: $id) { plan { title } } }`, { id: agent })).session.plan;
    expect(plan.title).toBe('Plan of Release agent');

    const ACTIVITY = `query($domain: String, $madeBy: ID, $after: String) { activity(first: 2, domain: $domain, madeBy: $madeBy, after: $after) {
      pageInfo { hasNextPage endCursor } nodes { action madeBy madeBySession { name } task { title } itemChanges { text from to } } } }`;
    const newest = (await server.ok(ACTIVITY, { domain })).activity;
    expect(newest.nodes.map((change: any) => [change.action, change.madeBySession?.name ?? 'a person', change.task.title, change.itemChanges])).toEqual([
      ['ITEM_STATE', 'a person', 'Release 2.0', [{ text: 'Ship the release', from: 'IN_PROGRESS', to: 'BLOCKED' }]],
      ['ITEM_STATE', 'Release agent', 'Release 2.0', [{ text: 'Ship the release', from: 'PENDING', to: 'IN_PROGRESS' }]],
    ]);
    const rest = (await server.ok(ACTIVITY, { domain, after: newest.pageInfo.endCursor })).activity;
    expect(rest.nodes.map((change: any) => change.action)).toEqual(['TASK_CREATED']);
    expect(rest.pageInfo.hasNextPage).toBe(false);
    const mine = (await server.ok(ACTIVITY, { madeBy: agent })).activity;
    expect(mine.nodes.map((change: any) => [change.action, change.task.title])).toEqual([['PLAN_WRITTEN', 'Plan of Release agent'], ['ITEM_STATE', 'Release 2.0']]);
  });

  it('marks a person\'s drop of an agent\'s step unseen, then seen by the agent at its next MCP call', async () => {
    const mcp = await connectMcp(server, { tools: 'step-ops' });
    try {
      await mcp.ok('todo', { tasks: ['Build the image', 'Deploy to staging', 'Smoke test'] });
      const sessionId = (await mcp.sessionId())!;
      const STEERING = `query($id: ID!) { session(id: $id) { steering { action itemText seen seenAt session { id } } plan { items { nodes { text steering { seen seenAt } } } } } }`;
      expect((await server.ok(STEERING, { id: sessionId })).session.steering).toBeNull();
      const planItems = (await server.ok(`query($id: ID!) { session(id: $id) { plan { items { nodes { id text } } } } }`, { id: sessionId })).session.plan.items.nodes;
      await server.ok(UPDATE_ITEM, { input: { id: planItems[2].id, state: 'DROPPED', comment: 'no staging today' } });
      const unseen = (await server.ok(STEERING, { id: sessionId })).session;
      expect(unseen.steering).toMatchObject({ action: 'ITEM_STATE', itemText: 'Smoke test', seen: false, seenAt: null, session: { id: sessionId } });
      expect(unseen.plan.items.nodes.map((item: any) => item.steering?.seen ?? null)).toEqual([null, null, false]);
      const told = await mcp.ok('todo', { index: 1, status: 'in_progress' });
      expect(told.text).toContain('Since your last call');
      const seen = (await server.ok(STEERING, { id: sessionId })).session;
      expect(seen.steering.seen).toBe(true);
      expect(Date.parse(seen.steering.seenAt)).toBeGreaterThan(0);
      expect(seen.plan.items.nodes[2].steering).toEqual({ seen: true, seenAt: seen.steering.seenAt });
    } finally {
      await mcp.close();
    }
  });

  it('says a finished session left with a blocked step is stuck, not wrapping up', async () => {
    const session = await startSession(server, { name: 'Deploy agent', preset: 'STEP_OPS' });
    await server.ok(SET_PLAN, { steps: ['Build the image', 'Deploy to staging'] }, { session });
    await server.ok(UPDATE_STEP, { input: { step: 1, state: 'DONE', note: 'built' } }, { session });
    await server.ok(UPDATE_STEP, { input: { step: 2, state: 'BLOCKED', note: 'no credentials' } }, { session });
    const finished = (await server.ok(FINISH_SESSION, {}, { session })).finishSession;
    expect(finished.statusLine).toBe('2/2 · stuck: Deploy to staging (blocked)');
  });
});
