/**
 * Claims fence: an agent whose lease ran out and whose item another agent
 * took over cannot record its late DONE, so no two agents are told DONE for
 * one item, even when the late DONE and the takeover race. A person (no
 * session) may still change the item, a session may
 * force a change with its reason, and the override is in the history and
 * the change log with who did it. A holder whose lease ran out with no one
 * else on the item keeps working. Through GraphQL over HTTP and the
 * knowledge-base MCP tools, on a real database (SQLite, or PostgreSQL with
 * TEST_POSTGRES_URL). On PostgreSQL also across 3 built server processes,
 * with A's server paused (SIGSTOP) past A's lease, as a GC pause or a frozen
 * VM pauses it: A's late DONE, sent once it resumes, is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBuiltServers, type BuiltServer } from '../built-server.js';
import { CLAIM_ITEM, CLAIM_NEXT, READ_HISTORY } from '../fixtures/documents.js';
import { CHANGES, readToEnd } from '../fixtures/change-feed.js';
import { freshDomain } from '../fixtures/knowledge.js';
import { serverWithMcp, refusedByTool } from '../fixtures/mcp.js';
import { refusedAndNothingRecorded } from '../fixtures/nothing-recorded.js';
import { startSession } from '../fixtures/sessions.js';
import { createTask } from '../fixtures/tasks.js';

const { server, mcp: agent } = serverWithMcp({ tools: 'knowledge-base' });

const UPDATE = `mutation($input: UpdateItemInput!) { updateItem(input: $input) { id state text claim { session { id } } } }`;

interface HistoryRow { action: string; sessionId: string | null; changes: { itemId: string; kind: string; from: string | null; to: string | null }[] }

async function historyOf(taskId: string): Promise<HistoryRow[]> {
  return (await server.ok(READ_HISTORY, { id: taskId, first: 200 })).task.history.nodes;
}

/**
 * Waits until every one of these claims' leases is over by the clock they were stamped with (the database's, on this
 * machine), and (with a domain) the server has told each as an ITEM_CLAIM_EXPIRED change in the domain: a later check that a refusal
 * recorded nothing then compares the database before and after with no expiry told in between.
 */
async function leasesPass(domain: string | null, ...expiries: string[]): Promise<void> {
  const last = Math.max(...expiries.map((at) => Date.parse(at)));
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, last - Date.now()) + 250));
  if (domain === null) return;
  for (const until = Date.now() + 10_000; Date.now() < until;) {
    const { changes } = await readToEnd((query, variables) => server.ok(query, variables) as never, null, domain, 200);
    if (changes.filter((change) => change.action === 'ITEM_CLAIM_EXPIRED').length >= expiries.length) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`the server did not tell ${expiries.length} expired leases in ${domain} within 10 s`);
}

describe('claims fence', () => {
  it("refuses A's late DONE once B took the item over and finished it, telling A it was taken over; only B is told DONE; a lapsed holder no one replaced keeps working", async () => {
    const domain = freshDomain('fence');
    const { task, items: [taken, alone] } = await createTask(server, ['Write the refund handler', 'Write the refund email'], { domain });
    const [a, b, c] = [await startSession(server), await startSession(server), await startSession(server)];

    const mine = (await server.ok(CLAIM_ITEM, { input: { id: taken.id, ttlSeconds: 2 } }, { session: a })).claimItem;
    const lonely = (await server.ok(CLAIM_ITEM, { input: { id: alone.id, ttlSeconds: 2 } }, { session: c })).claimItem;
    await leasesPass(domain, mine.claim.expiresAt, lonely.claim.expiresAt);

    // B takes the first ready item: A's, whose lease is over.
    const next = (await server.ok(CLAIM_NEXT, { domain, ttlSeconds: 600 }, { session: b })).claimNext;
    expect(next).toMatchObject({ id: taken.id, claim: { session: { id: b } } });

    // While B holds it, A's change is refused: taken over, by whom, for how long.
    const whileHeld = await refusedAndNothingRecorded(server, 'CLAIMED', UPDATE, { input: { id: taken.id, state: 'IN_PROGRESS' } }, { session: a });
    expect(whileHeld).toMatch(new RegExp(`Session ${a}'s claim on item ${taken.id} lapsed and the work was taken over: session ${b} holds it for \\d+ s \\(until ${next.claim.expiresAt}\\)`));
    expect(whileHeld).toContain('Take other work (claimNext)');

    expect((await server.ok(UPDATE, { input: { id: taken.id, state: 'DONE', comment: 'Handler merged.' } }, { session: b })).updateItem.state).toBe('DONE');

    // A's late DONE, after B finished: refused (not answered DONE), and it says the work was taken over.
    const late = await refusedAndNothingRecorded(server, 'CLAIMED', UPDATE, { input: { id: taken.id, state: 'DONE', comment: 'Handler done.' } }, { session: a });
    expect(late).toContain(`lapsed and the work was taken over by session ${b}`);
    expect(late).toContain('claim it again (claimItem)');
    const doneBy = (await historyOf(task.id)).filter((row) => row.changes.some((change) => change.kind === 'STATE' && change.to === 'DONE'));
    expect(doneBy.map((row) => row.sessionId)).toEqual([b]);

    // C's lease ran out too, but no one took its item: C keeps working.
    expect((await server.ok(UPDATE, { input: { id: alone.id, state: 'DONE' } }, { session: c })).updateItem.state).toBe('DONE');
    // B, whose claim ended with the DONE, may still correct its own work.
    expect((await server.ok(UPDATE, { input: { id: taken.id, text: 'Write the refund handler (v2)' } }, { session: b })).updateItem.text).toBe('Write the refund handler (v2)');
  }, 30_000);

  it('never lets a late DONE and a takeover both succeed when they race: 20 items, each taken by claimNext while its lapsed holder sends DONE', async () => {
    const pairs = await Promise.all(Array.from({ length: 20 }, async () => {
      const domain = freshDomain('race');
      const { items: [item] } = await createTask(server, ['Reconcile the ledger'], { domain });
      return { domain, item: item.id, taker: await startSession(server) };
    }));
    const late = await startSession(server);
    const expiries: string[] = [];
    for (const { item } of pairs) expiries.push((await server.ok(CLAIM_ITEM, { input: { id: item, ttlSeconds: 1 } }, { session: late })).claimItem.claim.expiresAt);
    // Each in a domain of its own, raced at once: nothing here compares the database whole.
    await leasesPass(null, ...expiries);

    const outcomes = await Promise.all(pairs.map(async ({ domain, item, taker }) => {
      const [taken, done] = await Promise.all([
        server.gql(CLAIM_NEXT, { domain, ttlSeconds: 600 }, { session: taker }),
        server.gql(UPDATE, { input: { id: item, state: 'DONE' } }, { session: late }),
      ]);
      expect(taken.errors).toBeUndefined();
      const tookIt = taken.data!.claimNext?.id === item;
      const doneCode = done.errors?.[0]?.extensions?.code ?? null;
      return { tookIt, lateDone: doneCode === null, doneCode };
    }));
    // Exactly one of them wins each item: the taker (and the late DONE is CLAIMED), or the late DONE (and nothing is left to take).
    for (const outcome of outcomes) {
      expect(outcome.tookIt !== outcome.lateDone, JSON.stringify(outcome)).toBe(true);
      if (outcome.tookIt) expect(outcome.doneCode).toBe('CLAIMED');
    }
    console.log(`racing late DONE against claimNext on ${process.env.TEST_POSTGRES_URL ? 'PostgreSQL' : 'SQLite'}: ` +
      `${outcomes.filter((o) => o.tookIt).length} taken over (late DONE refused), ${outcomes.filter((o) => o.lateDone).length} late DONE first (nothing to take), 0 both`);
  }, 30_000);

  it("lets a person change a claimed item, and a session force a change with its reason, recorded with who did it and whose claim it was", async () => {
    const domain = freshDomain('fence');
    const { task, items: [held] } = await createTask(server, ['Add the refunds table'], { domain });
    const [holder, other] = [await startSession(server), await startSession(server)];
    await server.ok(CLAIM_ITEM, { input: { id: held.id } }, { session: holder });

    const refused = await refusedAndNothingRecorded(server, 'CLAIMED', UPDATE, { input: { id: held.id, text: 'Add the refunds tables' } }, { session: other });
    expect(refused).toMatch(new RegExp(`Item ${held.id} is claimed by session ${holder} for \\d+ s \\(until `));
    expect(refused).toContain('force: true');
    expect(await refusedAndNothingRecorded(server, 'BAD_USER_INPUT', UPDATE, { input: { id: held.id, state: 'DROPPED', force: true } }, { session: other })).toContain('reason in comment');

    // A person (no x-session-id) is never fenced; the claim stays the holder's.
    const byPerson = (await server.ok(UPDATE, { input: { id: held.id, state: 'IN_PROGRESS' } })).updateItem;
    expect(byPerson).toMatchObject({ state: 'IN_PROGRESS', claim: { session: { id: holder } } });

    const { cursor } = await readToEnd((query, variables) => server.ok(query, variables), null, null, 200);
    const forced = (await server.ok(UPDATE, { input: { id: held.id, state: 'BLOCKED', comment: 'Finance froze schema changes.', force: true } }, { session: other })).updateItem;
    expect(forced.state).toBe('BLOCKED');

    const history = await historyOf(task.id);
    const at = history.findIndex((row) => row.action === 'CLAIM_OVERRIDDEN');
    expect(history[at]).toMatchObject({ sessionId: other, changes: [{ itemId: held.id, kind: 'OVERRIDDEN', from: holder, to: null }] });
    expect(history[at + 1]).toMatchObject({ action: 'ITEM_STATE', sessionId: other, changes: [{ kind: 'STATE', from: 'IN_PROGRESS', to: 'BLOCKED' }] });
    const logged = (await server.ok(CHANGES, { after: cursor, first: 50 })).changes.nodes;
    expect(logged.map((change: { action: string }) => change.action)).toEqual(['CLAIM_OVERRIDDEN', 'ITEM_STATE']);
    expect(logged[0]).toMatchObject({ action: 'CLAIM_OVERRIDDEN', madeBy: other, itemId: held.id, sessionId: holder });
  });

  it('fences task_item the same way, in the tools\' words, and task_item force: true goes through', async () => {
    const domain = freshDomain('fence');
    const { task, items: [held] } = await createTask(server, ['Write the refund email'], { domain });
    const holder = await startSession(server);
    await server.ok(CLAIM_ITEM, { input: { id: held.id } }, { session: holder });

    const refused = await refusedByTool(server, agent, 'task_item', { uid: task.id, item: held.id, state: 'done' });
    expect(refused).toMatch(new RegExp(`claimed by session ${holder} for \\d+ s \\(until `));
    expect(refused).toContain('task_item again with force: true');
    expect(refused).not.toContain('updateItem');

    const forced = await agent.ok('task_item', { uid: task.id, item: held.id, state: 'done', comment: 'Sent by hand; the template was already live.', force: true });
    expect(forced.data.item.state).toBe('done');
    expect(forced.text).toContain(`Forced past session ${holder}'s claim on item ${held.id}`);
    const overridden = (await historyOf(task.id)).find((row) => row.action === 'CLAIM_OVERRIDDEN');
    expect(overridden).toMatchObject({ sessionId: await agent.sessionId(), changes: [{ kind: 'OVERRIDDEN', from: holder }] });
  });
});

const onPostgres = Boolean(process.env.TEST_POSTGRES_URL);

// Several server processes share a database only on PostgreSQL (a SQLite file has one server process).
if (onPostgres) {
  describe('claims fence across 3 server processes, one of them paused past a lease', () => {
    let servers: BuiltServer[] = [];
    let stopServers: (() => Promise<void>) | undefined;
    beforeAll(async () => {
      ({ servers, stop: stopServers } = await startBuiltServers(server.databaseUrl, 3, 'taskbase-fence-'));
    }, 120_000);
    afterAll(async () => {
      // A server left stopped by a failed test would never answer SIGTERM.
      for (const each of servers) each.process.kill('SIGCONT');
      await stopServers?.();
    });

    interface Answer { data?: any; errors?: { message: string; extensions?: { code?: string } }[] }
    async function via(n: number, query: string, variables: Record<string, unknown>, session?: string): Promise<Answer> {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (session) headers['x-session-id'] = session;
      const response = await fetch(`${servers[n]!.base}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
      return (await response.json()) as Answer;
    }
    async function ok(n: number, query: string, variables: Record<string, unknown>, session?: string): Promise<any> {
      const answer = await via(n, query, variables, session);
      if (answer.errors?.length) throw new Error(`server ${n + 1} answered errors: ${JSON.stringify(answer.errors)}`);
      return answer.data;
    }

    it("A claims for 10 s through server 1, server 1 is paused past the lease, B claims and finishes through server 2: A's DONE, once server 1 resumes, is CLAIMED; only B is told DONE; the history holds one DONE", async () => {
      const domain = freshDomain('paused');
      const { task, items: [item] } = (await ok(2, `mutation($input: CreateTaskInput!) { createTask(input: $input) { task { id } items { id } } }`,
        { input: { title: 'Ship the refund report', goal: 'One agent finishes it.', items: ['Build the refund report'], domain } })).createTask;
      const START = 'mutation { startSession { id } }';
      const [a, b] = [(await ok(0, START, {})).startSession.id as string, (await ok(1, START, {})).startSession.id as string];

      const mine = (await ok(0, CLAIM_ITEM, { input: { id: item.id, ttlSeconds: 10 } }, a)).claimItem;
      expect(mine.claim.session.id).toBe(a);
      // Server 1 is paused with A's request answered and its next one not yet sent: what a GC pause or a frozen VM does.
      servers[0]!.process.kill('SIGSTOP');
      let lateDone: Promise<Answer> | null = null;
      try {
        await leasesPass(null, mine.claim.expiresAt);
        const taken = (await ok(1, CLAIM_NEXT, { domain, ttlSeconds: 600 }, b)).claimNext;
        expect(taken).toMatchObject({ id: item.id, claim: { session: { id: b } } });
        expect((await ok(1, UPDATE, { input: { id: item.id, state: 'DONE', comment: 'Report built.' } }, b)).updateItem.state).toBe('DONE');
        // A sends its DONE while its server is still paused: the request waits in the socket until server 1 resumes.
        lateDone = via(0, UPDATE, { input: { id: item.id, state: 'DONE', comment: 'Report built too.' } }, a);
        await new Promise((resolve) => setTimeout(resolve, 500));
      } finally {
        servers[0]!.process.kill('SIGCONT');
      }
      const late = await lateDone!;
      expect(late.data?.updateItem ?? null).toBeNull();
      expect(late.errors?.[0]?.extensions?.code, JSON.stringify(late.errors)).toBe('CLAIMED');
      expect(late.errors![0]!.message).toContain(`lapsed and the work was taken over by session ${b}`);

      // Every server reads the same outcome: done, by B, once.
      for (const n of [0, 1, 2]) {
        const rows = (await ok(n, READ_HISTORY, { id: task.id, first: 200 })).task.history.nodes as HistoryRow[];
        const done = rows.filter((row) => row.changes.some((change) => change.kind === 'STATE' && change.to === 'DONE'));
        expect(done.map((row) => row.sessionId)).toEqual([b]);
      }
    }, 60_000);
  });
}
