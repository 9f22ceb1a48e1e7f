/**
 * The public change feed (`changes`): a reader paging it sees every
 * acknowledged write once, in commit order, with no gaps, whichever process
 * wrote it — on PostgreSQL two server processes and a `taskbase mcp`
 * process, on SQLite (one server per file) the server and two stdio
 * processes — and across a restart of the server it reads through, resuming
 * from the cursor it kept. A cursor whose following changes were pruned is
 * refused with a resync hint, a malformed one or one the log has not reached
 * says what to send, and a
 * domain narrows the feed to it and below. Figures are printed for the note.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeChangeCursor, encodeChangeCursor } from '../../src/domain/change-cursor.js';
import { startTestServer, type TestServer } from '../harness.js';
import { startBuiltServer, type BuiltServer } from '../built-server.js';
import { CREATE_NOTE } from '../fixtures/documents.js';
import { stdioAgent, type StdioAgent } from '../fixtures/change-log.js';
import { CHANGES, readToEnd, type LoggedChange } from '../fixtures/change-feed.js';

const onPostgres = Boolean(process.env.TEST_POSTGRES_URL);
const DATABASE = onPostgres ? 'PostgreSQL' : 'SQLite';
let server: TestServer;
let other: BuiltServer | null = null;
let agents: StdioAgent[] = [];
let workDir: string;

beforeAll(async () => {
  server = await startTestServer();
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'taskbase-change-feed-'));
  [other, agents] = await Promise.all([
    onPostgres ? startBuiltServer(server.databaseUrl, workDir, 90_000) : Promise.resolve(null),
    Promise.all(Array.from({ length: onPostgres ? 1 : 2 }, () => stdioAgent(server.databaseUrl))),
  ]);
}, 120_000);
afterAll(async () => {
  await Promise.all(agents.map((agent) => agent.close()));
  if (other) {
    other.process.kill('SIGTERM');
    await other.exited();
  }
  await server?.close();
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

/** One writer: a name for the figures, and how it creates a note (answering its id once acknowledged). */
interface NoteWriter { name: string; write(domain: string, title: string): Promise<string> }

const viaServer = (): NoteWriter => ({
  name: 'server 1',
  write: async (domain, title) => (await server.ok(CREATE_NOTE, { input: { title, body: 'b', domain } })).createNote.id,
});

function otherWriters(): NoteWriter[] {
  const writers: NoteWriter[] = agents.map((agent, i) => ({
    name: `stdio ${i + 1}`,
    write: async (domain, title) => String((await agent.call('remember', { title, body: 'b', domain })).data.uid),
  }));
  if (other) {
    const built = other;
    writers.unshift({
      name: 'server 2',
      write: async (domain, title) => {
        const result = await built.graphql(CREATE_NOTE, { input: { title, body: 'b', domain } });
        expect(result.errors).toBeUndefined();
        return result.data.createNote.id;
      },
    });
  }
  return writers;
}

const read = (after: string | null, domain: string | null, first = 7) =>
  readToEnd((query, variables) => server.ok(query, variables), after, domain, first);

describe(`the change feed on ${DATABASE}, written by ${onPostgres ? 'two servers and a stdio process' : 'the server and two stdio processes'}`, () => {
  it('pages every acknowledged write once, in commit order, with no gap across a restart of the server it reads through', async () => {
    const { cursor: start } = await read(null, null, 200);
    const acknowledged = new Map<string, string[]>();
    const round = async (writers: NoteWriter[], n: number) => {
      await Promise.all(writers.map(async (writer, w) => {
        const id = await writer.write(`feed/w${w}`, `round ${n} by ${writer.name}`);
        acknowledged.set(writer.name, [...(acknowledged.get(writer.name) ?? []), id]);
      }));
    };
    const others = otherWriters();
    let n = 0;
    for (; n < 8; n += 1) await round([viaServer(), ...others], n);
    // The reader reads part of the feed, then keeps its cursor through the restart.
    const before = await read(start, 'feed');
    await server.close();
    let writtenWhileDown = 0;
    for (const stop = n + 4; n < stop; n += 1) {
      await round(others, n);
      writtenWhileDown += others.length;
    }
    server = await startTestServer({ file: server.file });
    for (const stop = n + 8; n < stop; n += 1) await round([viaServer(), ...others], n);
    const after = await read(before.cursor, 'feed');

    const changes = [...before.changes, ...after.changes];
    const ids = changes.map((change) => decodeChangeCursor(change.id)!);
    expect(ids, 'in log order, none twice').toEqual([...new Set(ids)].sort((a, b) => a - b));
    const read_ = changes.map((change) => change.memoryId!);
    const total = [...acknowledged.values()].reduce((sum, list) => sum + list.length, 0);
    expect(changes).toHaveLength(total);
    expect(new Set(read_)).toEqual(new Set([...acknowledged.values()].flat()));
    // Each writer's writes (each acknowledged before its next) are read in the order it made them.
    for (const [, list] of acknowledged) expect(read_.filter((id) => list.includes(id))).toEqual(list);
    expect(changes.every((change) => change.action === 'NOTE_CREATED' && change.domain!.startsWith('feed/'))).toBe(true);
    console.log(
      `[change feed, ${DATABASE}] acknowledged ${total} writes (${[...acknowledged].map(([name, list]) => `${name} ${list.length}`).join(', ')}; ` +
        `${writtenWhileDown} while the reader's server was down), read ${changes.length} changes (${before.changes.length} before the restart, ` +
        `${after.changes.length} after), in log order, none twice, none missing`,
    );
  }, 240_000);

  it('narrows to a domain and those under it, not to its siblings', async () => {
    const { cursor } = await read(null, null, 200);
    const inside = await viaServer().write('scope/a', 'inside');
    const below = await viaServer().write('scope/a/b', 'below');
    await viaServer().write('scope/ab', 'sibling');
    await viaServer().write('scope', 'parent');
    const { changes } = await read(cursor, 'scope/a');
    expect(changes.map((change) => change.memoryId)).toEqual([inside, below]);
  });

  it('keeps endCursor on an empty page, so a client can always store it', async () => {
    const { cursor } = await read(null, null, 200);
    const page = (await server.ok(CHANGES, { after: cursor })).changes;
    expect(page.nodes).toEqual([]);
    expect(page.pageInfo).toEqual({ hasNextPage: false, endCursor: cursor });
  });

  it('refuses a malformed cursor, an invalid domain and a page too large, saying what to send', async () => {
    const malformed = await server.refused(CHANGES, { after: 'not-a-cursor' });
    expect(malformed.code).toBe('BAD_USER_INPUT');
    expect(malformed.message).toMatch(/Pass the id \(or pageInfo.endCursor\) of a change/);
    // Another list's cursor is not a change-log cursor either.
    expect((await server.refused(CHANGES, { after: Buffer.from('[12]').toString('base64url') })).code).toBe('BAD_USER_INPUT');
    expect((await server.refused(CHANGES, { domain: 'Not A Domain' })).code).toBe('INVALID_DOMAIN');
    expect((await server.refused(CHANGES, { first: 201 })).code).toBe('TOO_LARGE');
  });

  it('refuses a well-formed cursor the log has not reached, saying what the newest is, so a client never keeps one that skips changes', async () => {
    const { cursor } = await read(null, null, 200);
    const ahead = encodeChangeCursor(decodeChangeCursor(cursor)! + 1_000);
    const refused = await server.refused(CHANGES, { after: ahead });
    expect(refused.code).toBe('BAD_USER_INPUT');
    expect(refused.message).toContain(`the newest change given is ${cursor}`);
    expect(refused.message).toMatch(/read changes without after to its end/);
    // The changes written after that refusal are read from the cursor the client had: nothing was skipped.
    const id = await viaServer().write('scope/ahead', 'After the refusal');
    expect((await read(cursor, null)).changes.map((change) => change.memoryId)).toEqual([id]);
  });
});

/** Once the server's start-up prune has left `kept` changes (it runs beside serving, so it is waited for). */
async function pruned(server: TestServer, kept: number): Promise<void> {
  while ((await readToEnd((q, v) => server.ok(q, v), null, null)).changes.length > kept) await new Promise((resolve) => setTimeout(resolve, 50));
}

describe(`a cursor older than the change log keeps, on ${DATABASE}`, () => {
  it('is refused with BAD_USER_INPUT telling the client to resync, and the recipe then works', async () => {
    const small = await startTestServer({ env: { TASKBASE_CHANGE_LOG_ROWS: '3' } });
    let restarted: TestServer | null = null;
    try {
      const note = (title: string) => small.ok(CREATE_NOTE, { input: { title, body: 'b', domain: 'pruned' } });
      await note('first');
      const { cursor: old } = await readToEnd((q, v) => small.ok(q, v), null, null);
      for (let i = 0; i < 6; i += 1) await note(`later ${i}`);
      await small.close();
      // A server prunes at start: all but the newest 3 changes go.
      restarted = await startTestServer({ file: small.file, env: { TASKBASE_CHANGE_LOG_ROWS: '3' } });
      await pruned(restarted, 3);
      const refusal = await restarted.refused(CHANGES, { after: old });
      expect(refusal.code).toBe('BAD_USER_INPUT');
      expect(refusal.message).toMatch(/pruned\. Resync: read changes without after/);
      // The recipe: read from the oldest kept to the end, keep endCursor, resume from it.
      const { changes, cursor } = await readToEnd((q, v) => restarted!.ok(q, v), null, null);
      expect(changes.map((change: LoggedChange) => change.action)).toEqual(['NOTE_CREATED', 'NOTE_CREATED', 'NOTE_CREATED']);
      await restarted.ok(CREATE_NOTE, { input: { title: 'after resync', body: 'b', domain: 'pruned' } });
      expect((await readToEnd((q, v) => restarted!.ok(q, v), cursor, null)).changes).toHaveLength(1);
    } finally {
      await (restarted ?? small).close().catch(() => undefined);
    }
  }, 60_000);

  it('is refused the same when age emptied the log, and a fresh reader starts from nothing', async () => {
    let now = new Date('2030-01-01T00:00:00Z');
    const clock = () => now;
    const aged = await startTestServer({ clock, env: { TASKBASE_CHANGE_LOG_DAYS: '1' } });
    let restarted: TestServer | null = null;
    try {
      await aged.ok(CREATE_NOTE, { input: { title: 'old', body: 'b', domain: 'aged' } });
      const { cursor: before } = await readToEnd((q, v) => aged.ok(q, v), null, null);
      await aged.ok(CREATE_NOTE, { input: { title: 'older still', body: 'b', domain: 'aged' } });
      await aged.close();
      now = new Date('2030-01-03T00:00:00Z');
      restarted = await startTestServer({ file: aged.file, clock, env: { TASKBASE_CHANGE_LOG_DAYS: '1' } });
      await pruned(restarted, 0);
      expect((await restarted.refused(CHANGES, { after: before })).message).toMatch(/pruned\. Resync/);
    } finally {
      await (restarted ?? aged).close().catch(() => undefined);
    }
  }, 60_000);
});
