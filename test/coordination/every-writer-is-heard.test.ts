/**
 * Every writer is heard: a change made by another process on the server's
 * database — `taskbase mcp` writing it directly, `taskbase seed`,
 * `taskbase remind` — reaches a graphql-ws subscription of the running
 * server, once and in log order, because every write appends to the change
 * log in its own transaction and the server tails the log (on SQLite a poll
 * every 250 ms, on PostgreSQL woken by NOTIFY). The waits are generous; no
 * test measures how fast.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { CREATE_NOTE, CREATE_TASK, START_SESSION } from '../fixtures/documents.js';
import { DOMAIN_CHANGED, SESSION_CHANGED, subscribe, whenHeld, type Live } from '../fixtures/live.js';
import { cli, heardUntil, loggedUnder, newestLogId, stdioAgent, type StdioAgent } from '../fixtures/change-log.js';

const onPostgres = Boolean(process.env.TEST_POSTGRES_URL);
let server: TestServer;
const open: { close(): Promise<void> }[] = [];
const held = <T extends { close(): Promise<void> }>(thing: T) => (open.push(thing), thing);
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => {
  await Promise.all(open.map((thing) => thing.close()));
  await server?.close();
});

const note = async (domain: string, title: string): Promise<string> =>
  (await server.ok(CREATE_NOTE, { input: { title, body: 'b', domain } })).createNote.id;

/** A domainChanged subscription on the server under `under`, held (heard a poke), and the log id it starts after. */
async function watching(under: string): Promise<{ live: Live; from: number }> {
  const live = held(subscribe(server.url, DOMAIN_CHANGED, { under }));
  await whenHeld(live, () => note(`${under}/poke`, 'poke'));
  return { live, from: await newestLogId(server) };
}

describe('taskbase mcp writing the database itself, beside the running server', () => {
  let agent: StdioAgent;
  beforeAll(async () => { agent = held(await stdioAgent(server.databaseUrl)); });

  it('says on stderr that it writes directly and that the server hears its changes through the change log', async () => {
    const [line] = agent.stderr().split('\n').filter((l) => l.startsWith('taskbase mcp: '));
    expect(line).toContain('directly');
    expect(line).toContain('hears these changes through the change log');
    // On SQLite it names the server holding the file; on PostgreSQL every server on the database hears it.
    if (onPostgres) expect(line).toContain('every taskbase server on this database');
    else expect(line).toContain(`the server at ${server.app.server.url} on this file`);
  });

  it('creates a task and works an item: each change reaches the subscription once, in log order', async () => {
    const { live, from } = await watching('heard/mcp');
    const created = await agent.call('task', { title: 'Written over stdio', goal: 'g', items: 'First\nSecond', domain: 'heard/mcp/agent' });
    const uid = created.data.uid as string;
    await agent.call('task_item', { uid, item: created.data.items[0], state: 'done', comment: 'checked' });
    await agent.call('task_comment', { uid, body: 'Commented over stdio' });
    await agent.call('remember', { title: 'Noted over stdio', body: 'b', domain: 'heard/mcp/agent' });
    const sentinel = await note('heard/mcp', 'sentinel');

    const heard = await heardUntil(live, sentinel);
    expect(heard.slice(0, 3)).toEqual([`${uid} TASK_CREATED`, `${uid} ITEM_STATE`, `${uid} COMMENT_ADDED`]);
    expect(heard[3]).toMatch(/^\d+ NOTE_CREATED$/);
    expect(heard).toEqual(await loggedUnder(server, 'heard/mcp', from));
    console.log(`[change log, taskbase mcp on ${onPostgres ? 'PostgreSQL' : 'SQLite'}] written ${heard.length - 1} by the stdio process + 1 by the server, delivered ${heard.length}`);
  });
});

describe('taskbase seed', () => {
  it('its tasks reach the subscription once each, in log order', async () => {
    const { live, from } = await watching('acme');
    await cli(server.databaseUrl, ['seed']);
    const sentinel = await note('acme', 'sentinel');
    const heard = await heardUntil(live, sentinel);
    const created = heard.filter((line) => line.endsWith(' TASK_CREATED'));
    // The demo has four tasks under acme; each also has its follow-up work (states, notes, comments).
    expect(created).toHaveLength(4);
    expect(heard.length).toBeGreaterThan(created.length + 1);
    expect(heard).toEqual(await loggedUnder(server, 'acme', from));
    console.log(`[change log, seed on ${onPostgres ? 'PostgreSQL' : 'SQLite'}] changes under acme written ${heard.length - 1} by seed + 1 by the server, delivered ${heard.length}`);
  });
});

describe('taskbase remind', () => {
  it("the reminder it records reaches the session's subscription", async () => {
    const session = (await server.ok(START_SESSION, {})).startSession.id as string;
    await server.ok(CREATE_TASK, { input: { title: 'Open work', goal: 'g', domain: 'heard/remind', items: ['Do it'] } });
    await server.ok('query { mustRead(domain: "heard/remind") { id } }', {}, { session });
    const live = held(subscribe(server.url, SESSION_CHANGED, { id: session }));
    await whenHeld(live, () => server.ok('mutation($rules: PlanRulesInput!) { setPlanRules(rules: $rules) { id } }', { rules: { maxItems: 50 } }, { session }));

    // On SQLite remind goes through the running server it finds from DATABASE_URL; on PostgreSQL it writes the database itself.
    const { stdout } = await cli(server.databaseUrl, ['remind', '--session', session, '--json']);
    expect(JSON.parse(stdout).domains).toEqual(['heard/remind']);
    const event = await live.until((value) => value.sessionChanged.action === 'REMINDED', 30_000);
    expect(event.sessionChanged).toMatchObject({ sessionId: session, madeBy: session });
  });
});
