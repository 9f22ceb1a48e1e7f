/** Session.name (given, else the plan's first step) and Domain's activity times, through GraphQL over HTTP. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { START_SESSION, UPDATE_ITEM, WRITE_TODOS } from '../fixtures/documents.js';
import { refusedAndNothingRecorded } from '../fixtures/nothing-recorded.js';
import { createTask } from '../fixtures/tasks.js';

const NAME = 'query($id: ID!) { session(id: $id) { id name createdAt lastActiveAt } }';
const DOMAINS = 'query($under: String) { domains(under: $under) { path tasks openTasks lastActivityAt createdAt } }';

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

describe('Session.name', () => {
  it('is the name startSession was given, trimmed', async () => {
    const id = (await server.ok(START_SESSION, { input: { name: '  Refund flow fixes ' } })).startSession.id;
    expect((await server.ok(NAME, { id })).session.name).toBe('Refund flow fixes');
  });

  it("without one it is null, then the plan's first step once a plan is written", async () => {
    const id = (await server.ok(START_SESSION, {})).startSession.id;
    expect((await server.ok(NAME, { id })).session.name).toBeNull();
    await server.ok(WRITE_TODOS, { todos: [{ content: 'Read the webhook handler', status: 'IN_PROGRESS' }, { content: 'Fix it', status: 'PENDING' }] }, { session: id });
    expect((await server.ok(NAME, { id })).session.name).toBe('Read the webhook handler');
  });

  it('a name over 120 characters is refused and no session is started', async () => {
    const message = await refusedAndNothingRecorded(server, 'TEXT_TOO_LONG', START_SESSION, { input: { name: 'n'.repeat(121) } });
    expect(message).toContain('the limit is 120');
  });
});

describe('Domain activity', () => {
  it('says when a domain and its parents last changed and when their first memory was made', async () => {
    const older = await createTask(server, ['A'], { domain: 'acme/older' });
    await createTask(server, ['B'], { domain: 'acme/newer' });
    await server.ok(UPDATE_ITEM, { input: { id: older.items[0].id, state: 'IN_PROGRESS' } });
    const rows = (await server.ok(DOMAINS, { under: 'acme' })).domains as { path: string; lastActivityAt: string; createdAt: string }[];
    const by = Object.fromEntries(rows.map((row) => [row.path, row]));
    expect(by['acme/older'].lastActivityAt > by['acme/newer'].lastActivityAt).toBe(true);
    expect(by['acme/older'].createdAt <= by['acme/newer'].createdAt).toBe(true);
    expect(by.acme.lastActivityAt).toBe(by['acme/older'].lastActivityAt);
    expect(by.acme.createdAt).toBe(by['acme/older'].createdAt);
  });
});
