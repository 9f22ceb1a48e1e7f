/**
 * One server process per SQLite file; other processes (`taskbase mcp`,
 * `seed`, any CLI command) may write the file beside it, and the server
 * hears their changes through the change log. The server holds a write lock
 * on a small SQLite file beside the database (`<file>.server.lock`) for as
 * long as it runs: the operating system drops the lock when the process ends,
 * however it ends (kill -9 included), so a lock is never stale. Beside it,
 * `<file>.server.json` says where that server listens, so other processes can
 * name it, and `taskbase remind` goes through it.
 */
import fs from 'node:fs';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import { databaseKind, sqlitePath } from './database-url.js';

/** What the running server publishes about itself. */
interface ServerRecord {
  url: string;
  pid: number;
}

interface SqliteOwnership {
  /** The database file this process owns. */
  file: string;
  /** Says where this server listens, for other processes to find it. */
  publish(url: string): void;
  /** Lets go of the file (on a clean stop; a crash lets go by itself). */
  release(): void;
}

/** A second server on the file is refused with this; the message is the operator's one line. */
export class DatabaseInUseError extends Error {
  constructor(readonly file: string, readonly owner: ServerRecord | null) {
    const who = owner ? `another taskbase server (pid ${owner.pid}, ${owner.url})` : 'another taskbase server';
    super(
      `${who} already serves the SQLite file ${file}, and a SQLite file has one server process. ` +
        `Use that server (taskbase mcp and the other commands may write the file beside it; it hears their changes), stop it first, ` +
        `or give this one its own DATABASE_URL (PostgreSQL for several servers on one database).`,
    );
    this.name = 'DatabaseInUseError';
  }
}

const lockFileOf = (file: string) => `${file}.server.lock`;
const recordFileOf = (file: string) => `${file}.server.json`;

/** The SQLite file a DATABASE_URL names, or null (PostgreSQL, or an in-memory database nobody else can open). */
function sqliteFileOf(databaseUrl: string): string | null {
  if (databaseKind(databaseUrl) !== 'sqlite') return null;
  const file = sqlitePath(databaseUrl);
  return file === ':memory:' || file === '' ? null : path.resolve(file);
}

function readRecord(file: string): ServerRecord | null {
  try {
    const record = JSON.parse(fs.readFileSync(recordFileOf(file), 'utf8')) as Partial<ServerRecord>;
    return typeof record.url === 'string' && typeof record.pid === 'number' ? { url: record.url, pid: record.pid } : null;
  } catch {
    return null;
  }
}

/** True when `error` is SQLite saying another connection holds the lock. */
function isBusy(error: unknown): boolean {
  const code = (error as { code?: string }).code ?? '';
  return code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED');
}

/**
 * Claims the SQLite file for this server process, or throws
 * DatabaseInUseError when another server holds it. Returns null for
 * PostgreSQL, where several servers may share a database. The wait is short
 * but not zero: `runningServer` below takes the lock for an instant to look.
 */
export function claimSqliteFile(databaseUrl: string): SqliteOwnership | null {
  const file = sqliteFileOf(databaseUrl);
  if (file === null) return null;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const lock = new Sqlite(lockFileOf(file), { timeout: 2_000 });
  try {
    // A RESERVED lock: other processes may still open and read the lock file, but none can take it too.
    lock.exec('BEGIN IMMEDIATE');
  } catch (error) {
    lock.close();
    if (isBusy(error)) throw new DatabaseInUseError(file, readRecord(file));
    throw error;
  }
  // Whatever record is there was left by a server that is gone (it no longer holds the lock).
  fs.rmSync(recordFileOf(file), { force: true });
  let released = false;
  return {
    file,
    publish(url) {
      // Written whole or not at all: a reader never sees half a record.
      const temp = `${recordFileOf(file)}.${process.pid}.tmp`;
      fs.writeFileSync(temp, `${JSON.stringify({ url, pid: process.pid } satisfies ServerRecord)}\n`);
      fs.renameSync(temp, recordFileOf(file));
    },
    release() {
      if (released) return;
      released = true;
      // The record goes while the lock is still held, so no newer server's record is ever removed.
      if (readRecord(file)?.pid === process.pid) fs.rmSync(recordFileOf(file), { force: true });
      lock.exec('ROLLBACK');
      lock.close();
    },
  };
}

/**
 * The server that owns this SQLite database right now, or null when none
 * does (a record left by a crashed server is not believed: its lock is gone).
 */
export function runningServer(databaseUrl: string): ServerRecord | null {
  const file = sqliteFileOf(databaseUrl);
  if (file === null || !fs.existsSync(lockFileOf(file))) return null;
  const probe = new Sqlite(lockFileOf(file), { timeout: 0, fileMustExist: true });
  try {
    probe.exec('BEGIN IMMEDIATE');
    probe.exec('ROLLBACK');
    return null;
  } catch (error) {
    if (!isBusy(error)) throw error;
    return readRecord(file);
  } finally {
    probe.close();
  }
}

/** What the server says at start-up about the file it holds. */
export function ownerNotice(): string {
  return 'a SQLite file has one server process: this one holds it, and a second server on the file is refused; ' +
    'other processes (taskbase mcp, seed, remind without a server) may write the file too, and this server hears their changes through the change log';
}

/**
 * What a process that writes DATABASE_URL itself (`taskbase mcp` without
 * --url) says on stderr about where its changes go, so whoever reads its log
 * knows whether a running dashboard will show them.
 */
export function directWriteNotice(databaseUrl: string): string {
  const file = sqliteFileOf(databaseUrl);
  if (databaseKind(databaseUrl) === 'postgres') {
    const url = new URL(databaseUrl);
    return `writing to the PostgreSQL database ${url.pathname.slice(1) || url.username} on ${url.host} directly; ` +
      'every taskbase server on this database hears these changes through the change log';
  }
  if (file === null) return 'writing to an in-memory SQLite database; no server can hear these changes';
  const server = runningServer(databaseUrl);
  const shown = path.relative(process.cwd(), file).startsWith('..') ? file : path.relative(process.cwd(), file);
  return server
    ? `writing to ${shown} directly; the server at ${server.url.replace(/\/graphql$/, '')} on this file hears these changes through the change log`
    : `writing to ${shown} directly; no taskbase server runs on this file now (one started later shows what was written)`;
}
