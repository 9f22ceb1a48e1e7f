/**
 * The change log is kept within bounds: a server prunes it at start (and
 * every minute) to TASKBASE_CHANGE_LOG_ROWS, newest kept, and drops changes
 * older than TASKBASE_CHANGE_LOG_DAYS, in batches; ids are never handed out
 * again after pruning, so a reader's cursor stays meaningful. Bad settings
 * are refused in one line naming the variable.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { sequenceChanges } from '../../src/services/kernel/changes/change-log.js';
import { startTestServer, type TestServer } from '../harness.js';
import { CREATE_NOTE } from '../fixtures/documents.js';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const note = async (title: string): Promise<string> =>
  (await server!.ok(CREATE_NOTE, { input: { title, body: 'b', domain: 'retention/notes' } })).createNote.id;

/** The log, once what committed is moved into it (PostgreSQL's change queue). */
async function logged(): Promise<{ id: number; entityId: string }[]> {
  await sequenceChanges(server!.app.services.db.reader);
  const rows: { id: number | string; entityId: string }[] = await server!.app.services.db.reader.query(`SELECT "id", "entityId" FROM "changes" ORDER BY "id"`);
  return rows.map((row) => ({ id: Number(row.id), entityId: row.entityId }));
}

/** Restarts the server on the same database with `env`, and waits for its start-up prune to leave at most `rows` changes. */
async function restarted(env: Record<string, string>, rows: number): Promise<void> {
  const { file } = server!;
  await server!.close();
  server = await startTestServer({ file, env });
  const deadline = Date.now() + 60_000;
  while ((await logged()).length > rows) {
    if (Date.now() > deadline) throw new Error(`the change log still holds ${(await logged()).length} changes, over ${rows}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('retention by rows', () => {
  it('keeps the newest TASKBASE_CHANGE_LOG_ROWS changes, pruning a larger backlog in batches', async () => {
    server = await startTestServer();
    // A backlog of 2,500 older changes (more than one prune batch), then 30 real ones.
    const at = new Date().toISOString();
    await server.app.services.db.transaction((manager) => manager.query(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2500)
       INSERT INTO "changes" ("at", "action", "entity", "entityId") SELECT '${at}', 'SETTINGS_CHANGED', 'SETTINGS', 'reminders' FROM n`,
    ));
    const notes: string[] = [];
    for (let i = 0; i < 30; i += 1) notes.push(await note(`Note ${i}`));
    const before = await logged();
    expect(before).toHaveLength(2530);

    await restarted({ TASKBASE_CHANGE_LOG_ROWS: '100' }, 100);
    const after = await logged();
    expect(after.map((row) => row.id)).toEqual(before.slice(-100).map((row) => row.id));
    expect(after.slice(-30).map((row) => row.entityId)).toEqual(notes);
  }, 120_000);
});

describe('retention by age', () => {
  it('drops changes older than TASKBASE_CHANGE_LOG_DAYS and keeps newer ones; ids go on from the highest ever given', async () => {
    let offset = -10 * 86_400_000;
    server = await startTestServer({ clock: () => new Date(Date.now() + offset) });
    for (let i = 0; i < 20; i += 1) await note(`Ten days old ${i}`);
    offset = -86_400_000;
    const recent: string[] = [];
    for (let i = 0; i < 5; i += 1) recent.push(await note(`A day old ${i}`));
    const highest = Math.max(...(await logged()).map((row) => row.id));

    await restarted({ TASKBASE_CHANGE_LOG_DAYS: '7' }, 5);
    expect((await logged()).map((row) => row.entityId)).toEqual(recent);

    await restarted({ TASKBASE_CHANGE_LOG_DAYS: '1' }, 0);
    expect(await logged()).toEqual([]);
    const next = await note('After the log was emptied');
    const [row] = await logged();
    expect(row).toEqual({ id: expect.any(Number), entityId: next });
    expect(row!.id).toBeGreaterThan(highest);
  }, 120_000);
});

describe('retention settings', () => {
  it('default to 7 days and 100,000 changes', () => {
    expect(loadConfig({}).changeLog).toEqual({ days: 7, rows: 100_000 });
    expect(loadConfig({ TASKBASE_CHANGE_LOG_DAYS: '30', TASKBASE_CHANGE_LOG_ROWS: '5000' }).changeLog).toEqual({ days: 30, rows: 5000 });
  });

  it('refuse anything but a whole number from 1 up, naming the variable and what it takes', () => {
    for (const [name, value] of [['TASKBASE_CHANGE_LOG_DAYS', '0'], ['TASKBASE_CHANGE_LOG_DAYS', '1.5'], ['TASKBASE_CHANGE_LOG_ROWS', 'lots'], ['TASKBASE_CHANGE_LOG_ROWS', '-3']]) {
      expect(() => loadConfig({ [name]: value }), `${name}=${value}`).toThrow(new RegExp(`^${name} must be a whole number from 1 up \\(.*\\); got "${value.replace('.', '\\.')}"\\.$`));
    }
  });
});
