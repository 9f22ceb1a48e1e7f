/**
 * A SQLite database file as an operator handles it: checked whole before a
 * server serves it, copied consistently while a server writes it, and put
 * back from such a copy. A plain `cp` of the file during writes can catch it
 * half-written, and a copy put back beside the old file's `-wal` has that
 * WAL's pages replayed over it: both make a damaged database.
 */
import fs from 'node:fs';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import { isDatabaseDamaged } from './unavailable.js';

/** The file is not a whole SQLite database; the message is the operator's one line. */
export class DatabaseDamagedError extends Error {
  constructor(readonly file: string, detail: string) {
    super(
      `the SQLite file ${file} is damaged (${detail}), so the server will not serve it. ` +
        'Restore the last backup with `taskbase restore <backup>` while no server runs on the file (docs/operations.md); ' +
        'with no backup, `sqlite3 <file> .recover` saves what it can.',
    );
    this.name = 'DatabaseDamagedError';
  }
}

/** SQLite's own check of every page's structure (not the indexes' contents): about 5 ms per MB here. */
function quickCheck(db: Sqlite.Database): string {
  const lines = db.pragma('quick_check(5)', { simple: false }) as { quick_check: string }[];
  return lines.map((line) => line.quick_check).join('; ');
}

/** The first lines SQLite gives for a damaged file, or null when the file is whole. */
function damageIn(file: string): string | null {
  let db: Sqlite.Database | null = null;
  try {
    // Not read-only: a -wal left beside the file must be opened (and replayed) as the server would.
    db = new Sqlite(file, { fileMustExist: true, timeout: 5_000 });
    const result = quickCheck(db);
    return result === 'ok' ? null : result;
  } catch (error) {
    if (isDatabaseDamaged(error)) return (error as Error).message;
    throw error;
  } finally {
    db?.close();
  }
}

/**
 * Throws DatabaseDamagedError unless `file` (with whatever -wal is beside it)
 * is a whole database. A file that does not exist yet is whole: the server
 * creates it.
 */
export function assertSqliteWhole(file: string): void {
  if (!fs.existsSync(file)) return;
  const damage = damageIn(file);
  if (damage) throw new DatabaseDamagedError(file, damage);
}

/**
 * Writes a consistent copy of the database `file` to `target`, while servers
 * and agents go on writing it: `VACUUM INTO` reads one snapshot (one read
 * transaction, which in WAL mode holds no writer up) and writes it compacted.
 * The copy is made beside the target and renamed into place once it checked
 * whole, so `target` is never half a backup. Answers the copy's size.
 */
export function backupSqlite(file: string, target: string): number {
  if (!fs.existsSync(file)) throw new Error(`there is no SQLite database at ${file} to back up (check DATABASE_URL)`);
  if (fs.existsSync(target)) throw new Error(`${target} exists already; name a new file for the backup, or remove that one first`);
  fs.mkdirSync(path.dirname(path.resolve(target)), { recursive: true });
  const partial = `${target}.partial-${process.pid}`;
  fs.rmSync(partial, { force: true });
  const db = new Sqlite(file, { fileMustExist: true, timeout: 5_000 });
  try {
    db.prepare('VACUUM INTO ?').run(partial);
  } finally {
    db.close();
  }
  try {
    const damage = damageIn(partial);
    if (damage) throw new DatabaseDamagedError(file, damage);
    fs.renameSync(partial, target);
  } finally {
    fs.rmSync(partial, { force: true });
  }
  return fs.statSync(target).size;
}

/**
 * Puts the backup `source` in place of the database `file`, which no server
 * may be serving (the caller checks). The old file's `-wal` and `-shm` go
 * first (SQLite would replay that WAL over the backup), the backup is checked
 * whole, copied beside the file and renamed over it: an interrupted restore
 * leaves either the old file or the backup, never a mix.
 */
export function restoreSqlite(source: string, file: string): void {
  if (!fs.existsSync(source)) throw new Error(`there is no backup at ${source}`);
  const damage = damageIn(source);
  if (damage) throw new DatabaseDamagedError(source, damage);
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const incoming = `${file}.restoring-${process.pid}`;
  fs.copyFileSync(source, incoming);
  for (const leftover of [`${file}-wal`, `${file}-shm`, `${file}-journal`]) fs.rmSync(leftover, { force: true });
  fs.renameSync(incoming, file);
}
