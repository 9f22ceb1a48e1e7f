import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';

const run = promisify(execFile);

// The server's clock is injected: each test moves it instead of sleeping.
let now = new Date('2026-11-30T09:00:00.000Z');
const advanceMinutes = (minutes: number) => { now = new Date(now.getTime() + minutes * 60_000); };

let server: TestServer;
beforeAll(async () => { server = await startTestServer({ clock: () => now }); });
afterAll(async () => { await server?.close(); });
beforeEach(async () => {
  await server.ok('mutation { updateReminderSettings(enabled: true, intervalMinutes: 30) { enabled } }');
});

const START = 'mutation { startSession { id } }';
const END_TURN = 'mutation { endTurn { text domains tasks { id title state } } }';
const CREATE = `mutation($input: CreateTaskInput!) { createTask(input: $input) { task { id } items { id } } }`;

async function newSession(): Promise<string> {
  return (await server.ok(START)).startSession.id;
}

/** A task in `domain` created by `session`, which names the domain. */
async function taskIn(domain: string, session: string, title = `Task in ${domain}`) {
  const data = await server.ok(CREATE, { input: { title, goal: 'Keep it current.', items: ['Do the first thing', 'Do the second thing'], domain } }, { session });
  return { id: data.createTask.task.id as string, items: data.createTask.items.map((i: { id: string }) => i.id) as string[] };
}

async function endTurn(session: string) {
  return (await server.ok(END_TURN, {}, { session })).endTurn as null | { text: string; domains: string[]; tasks: { id: string; title: string }[] };
}

async function domainsOf(session: string): Promise<string[]> {
  return (await server.ok('query($id: ID!) { session(id: $id) { domains } }', { id: session })).session.domains;
}

describe('endTurn', () => {
  it('refuses a call without a started session', async () => {
    expect((await server.refused(END_TURN)).code).toBe('NO_SESSION');
    expect((await server.refused(END_TURN, {}, { session: 'no-such-session' })).code).toBe('NO_SESSION');
  });

  it('asks nothing of a session that named no domain', async () => {
    const session = await newSession();
    await taskIn('quiet/elsewhere', await newSession());
    expect(await endTurn(session)).toBeNull();
  });

  it('lists the open tasks of the named domains, then waits out the interval', async () => {
    const session = await newSession();
    const task = await taskIn('acme/interval', session, 'Move billing webhooks');
    const reminder = await endTurn(session);
    expect(reminder?.domains).toEqual(['acme/interval']);
    expect(reminder?.tasks.map((t) => t.id)).toEqual([task.id]);
    expect(reminder?.text).toContain('Move billing webhooks');
    expect(reminder?.text).toContain('0/2 done');

    expect(await endTurn(session)).toBeNull();
    advanceMinutes(29);
    expect(await endTurn(session)).toBeNull();
    advanceMinutes(1);
    expect((await endTurn(session))?.tasks.map((t) => t.id)).toEqual([task.id]);
  });

  it('follows a changed interval', async () => {
    const session = await newSession();
    await taskIn('acme/short-interval', session);
    await server.ok('mutation { updateReminderSettings(intervalMinutes: 5) { intervalMinutes } }');
    expect(await endTurn(session)).not.toBeNull();
    advanceMinutes(4);
    expect(await endTurn(session)).toBeNull();
    advanceMinutes(1);
    expect(await endTurn(session)).not.toBeNull();
  });

  it('says nothing while reminders are off, and does not use up the interval', async () => {
    const session = await newSession();
    await taskIn('acme/disabled', session);
    await server.ok('mutation { updateReminderSettings(enabled: false) { enabled } }');
    expect(await endTurn(session)).toBeNull();
    await server.ok('mutation { updateReminderSettings(enabled: true) { enabled } }');
    expect(await endTurn(session)).not.toBeNull();
  });

  it('says nothing when every task of the domains is settled', async () => {
    const session = await newSession();
    const task = await taskIn('acme/settled', session);
    for (const id of task.items) await server.ok('mutation($id: ID!) { updateItem(input: { id: $id, state: DONE }) { id } }', { id }, { session });
    expect(await endTurn(session)).toBeNull();
    // Reopening makes the task open again; the empty turn did not count as a reminder.
    await server.ok('mutation($id: ID!) { updateItem(input: { id: $id, state: IN_PROGRESS }) { id } }', { id: task.items[0] }, { session });
    const reminder = await endTurn(session);
    expect(reminder?.text).toContain('in progress: Do the first thing');
  });

  it('keeps reminding about a task whose open work is stuck (BLOCKED or FAILED), naming what is stuck', async () => {
    const session = await newSession();
    const task = await taskIn('acme/stuck', session, 'Rotate the signing keys');
    await server.ok('mutation($id: ID!) { updateItem(input: { id: $id, state: DONE }) { id } }', { id: task.items[0] }, { session });
    await server.ok('mutation($id: ID!) { updateItem(input: { id: $id, state: BLOCKED, comment: "Waiting on the vault team" }) { id } }', { id: task.items[1] }, { session });
    const reminder = await endTurn(session);
    expect(reminder?.tasks).toEqual([{ id: task.id, title: 'Rotate the signing keys', state: 'OPEN' }]);
    expect(reminder?.text).toContain('1/2 done; stuck: Do the second thing (BLOCKED)');
    expect((await server.ok('query { mustRead(domain: "acme/stuck") { id state } }')).mustRead).toEqual([{ id: task.id, state: 'OPEN' }]);
  });

  it('covers sub-domains of a named domain', async () => {
    const session = await newSession();
    const other = await newSession();
    const below = await taskIn('scope/checkout/billing', other);
    await taskIn('scope/checkoutx', other);
    await server.ok('query { mustRead(domain: "scope/checkout") { id } }', {}, { session });
    const reminder = await endTurn(session);
    expect(reminder?.tasks.map((t) => t.id)).toEqual([below.id]);
  });

  it('lists a task once when the session named its domain and a domain above it, newest first', async () => {
    const session = await newSession();
    const other = await newSession();
    const older = await taskIn('nest/checkout', other);
    const inner = await taskIn('nest/checkout/billing', other);
    await server.ok('query { mustRead(domain: "nest/checkout/billing") { id } }', {}, { session });
    await server.ok('query { mustRead(domain: "nest/checkout") { id } }', {}, { session });
    const reminder = await endTurn(session);
    expect(reminder?.tasks.map((t) => t.id)).toEqual([inner.id, older.id]);
  });

  it('reminds once when two servers-worth of endTurn calls race', async () => {
    const session = await newSession();
    await taskIn('acme/race', session);
    const results = await Promise.all(Array.from({ length: 8 }, () => server.gql(END_TURN, {}, { session })));
    expect(results.every((r) => !r.errors)).toBe(true);
    expect(results.filter((r) => r.data?.endTurn !== null)).toHaveLength(1);
  });
});

describe('domains named by a session', () => {
  it('records domains from inputs, reads, and tasks the session touches', async () => {
    const session = await newSession();
    const other = await newSession();
    const task = await taskIn('named/touched', other);
    await server.ok('mutation($input: CreateNoteInput!) { createNote(input: $input) { id } }', { input: { title: 'A note', body: 'text', domain: 'named/note' } }, { session });
    await server.ok('query { memories(domain: "named/listed") { totalCount } search(query: "x", domain: "named/searched") { totalCount } }', {}, { session });
    await server.ok('mutation($id: ID!) { updateItem(input: { id: $id, state: IN_PROGRESS }) { id } }', { id: task.items[0] }, { session });
    expect(await domainsOf(session)).toEqual(['named/listed', 'named/note', 'named/searched', 'named/touched']);
    expect(await domainsOf(other)).toEqual(['named/touched']);
  });

  it('records nothing for a refused call', async () => {
    const session = await newSession();
    const refused = await server.refused(CREATE, { input: { title: 'Dup', goal: 'g', items: ['Same', 'Same'], domain: 'refused/domain' } }, { session });
    expect(refused.code).toBe('DUPLICATE_TEXT');
    await server.refused('query { memories(domain: "Not A Domain") { totalCount } }', {}, { session });
    expect(await domainsOf(session)).toEqual([]);
    expect(await endTurn(session)).toBeNull();
  });
});

describe('reminder settings', () => {
  it('are stored and read back', async () => {
    const changed = await server.ok('mutation { updateReminderSettings(intervalMinutes: 90) { enabled intervalMinutes } }');
    expect(changed.updateReminderSettings).toEqual({ enabled: true, intervalMinutes: 90 });
    expect((await server.ok('{ reminderSettings { enabled intervalMinutes } }')).reminderSettings).toEqual({ enabled: true, intervalMinutes: 90 });
  });

  it.each([0, 1441])('refuses an interval of %s minutes and keeps the old one', async (minutes) => {
    const refused = await server.refused('mutation($m: Int) { updateReminderSettings(intervalMinutes: $m) { intervalMinutes } }', { m: minutes });
    expect(refused.code).toBe('BAD_USER_INPUT');
    expect(refused.message).toContain('1 to 1440');
    expect((await server.ok('{ reminderSettings { intervalMinutes } }')).reminderSettings.intervalMinutes).toBe(30);
  });
});

describe('the reminder job (npm run remind)', () => {
  const cli = async (...args: string[]) =>
    run(process.execPath, ['dist/src/cli.js', 'remind', ...args], { env: { ...process.env, DATABASE_URL: server.databaseUrl } });

  it('prints the reminder text once, then nothing within the interval', async () => {
    const session = await newSession();
    await taskIn('job/printed', session, 'Rotate the signing keys');
    const first = await cli('--session', session);
    expect(first.stdout).toContain('Rotate the signing keys');
    const second = await cli('--session', session);
    expect(second.stdout).toBe('');
  });

  it('prints JSON with --json, and null when nothing is due', async () => {
    const session = await newSession();
    const task = await taskIn('job/json', session, 'Renew the certificates');
    const due = JSON.parse((await cli('--session', session, '--json')).stdout);
    expect(due.domains).toEqual(['job/json']);
    expect(due.tasks.map((t: { id: string }) => t.id)).toEqual([task.id]);
    expect(JSON.parse((await cli('--session', session, '--json')).stdout)).toBeNull();
  });

  it('says which session it did not find, and exits 1, directly or over HTTP', async () => {
    for (const args of [[], ['--url', server.url]]) {
      await expect(cli('--session', 'no-such-session', ...args)).rejects.toMatchObject({
        code: 1, stdout: '', stderr: expect.stringContaining('no started session has id "no-such-session"'),
      });
    }
  });

  it('asks a running server with --url', async () => {
    const session = await newSession();
    await taskIn('job/http', session, 'Archive the old buckets');
    const { stdout } = await cli('--session', session, '--url', server.url);
    expect(stdout).toContain('Archive the old buckets');
  });
});

describe('the reminder text', () => {
  it('names only the domains that hold an open task it lists', async () => {
    const session = await newSession();
    await taskIn('text/open', session, 'Still open');
    const done = await taskIn('text/settled', session, 'All settled');
    for (const id of done.items) await server.ok('mutation($id: ID!) { updateItem(input: { id: $id, state: DONE }) { id } }', { id }, { session });
    const reminder = await endTurn(session);
    expect(reminder?.domains).toEqual(['text/open', 'text/settled']);
    expect(reminder?.text).toContain('1 open task in text/open may be out of date');
    expect(reminder?.text).not.toContain('text/settled');
  });
});
