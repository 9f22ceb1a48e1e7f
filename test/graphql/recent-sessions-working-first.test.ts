/** Query.recentSessions: the dashboard's list of sessions, working ones first, helpers under their parent. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { FINISH_SESSION, START_SESSION, WRITE_TODOS } from '../fixtures/documents.js';

let server: TestServer;
// Each write a second after the last, so "newest first" never hangs on two sessions started in one millisecond.
let now = Date.parse('2026-01-01T00:00:00Z');
beforeAll(async () => { server = await startTestServer({ clock: () => new Date((now += 1000)) }); });
afterAll(async () => { await server?.close(); });

const RECENT = 'query($first: Int) { recentSessions(first: $first) { id finishedAt children { id } } }';
const start = async (parentId?: string) => (await server.ok(START_SESSION, parentId ? { input: { parentId } } : {})).startSession.id as string;

describe('recentSessions', () => {
  it('lists top-level sessions not finished first, newest first within each, with their helpers as children', async () => {
    const finished = await start();
    await server.ok(WRITE_TODOS, { todos: [{ content: 'Done already', status: 'DONE' }] }, { session: finished });
    await server.ok(FINISH_SESSION, {}, { session: finished });
    const older = await start();
    const newer = await start();
    const helper = await start(older);
    const list = (await server.ok(RECENT, { first: 10 })).recentSessions as { id: string; finishedAt: string | null; children: { id: string }[] }[];
    expect(list.map((session) => session.id)).toEqual([newer, older, finished]);
    expect(list[1].children).toEqual([{ id: helper }]);
    expect(list[2].finishedAt).not.toBeNull();
    expect((await server.ok(RECENT, { first: 1 })).recentSessions.map((session: { id: string }) => session.id)).toEqual([newer]);
  });

  it('refuses a size outside 1..100 with BAD_USER_INPUT saying what to ask for', async () => {
    const refusal = await server.refused(RECENT, { first: 500 });
    expect(refusal).toEqual({ code: 'BAD_USER_INPUT', message: 'first must be 1..100; got 500. Ask for at most 100 recent sessions.' });
  });
});
