import { QueryRunnerAlreadyReleasedError, QueryRunnerProviderAlreadyReleasedError } from 'typeorm';

/**
 * Whether an error means the database cannot be reached or written at all
 * (as opposed to a query that failed): PostgreSQL down, refusing
 * connections or dropping them; a SQLite file that cannot be opened, read
 * or written. Those are answered UNAVAILABLE ("retry"), every other
 * unexpected error INTERNAL_SERVER_ERROR. Checked on the error and what it
 * wraps (TypeORM's QueryFailedError keeps the driver's error as driverError).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  // TypeORM's words for a query on a connection it already gave up (PostgreSQL dropped it mid-transaction): the query
  // runner's, and the manager's (EntityManager.query, e.g. the search index's write) for the same released runner.
  return causes(error).some((cause) => cause instanceof QueryRunnerAlreadyReleasedError || cause instanceof QueryRunnerProviderAlreadyReleasedError || unavailableHere(cause));
}

/** What an agent reads when the database is unavailable: nothing was recorded, and retrying is the fix. */
export const DATABASE_UNAVAILABLE =
  'The database cannot be reached right now, so nothing was read or recorded. Retry in a few seconds; the server reconnects by itself once the database is back.';

/** What a caller reads when the database's disk is full: a retry helps only once someone frees space. */
export const DISK_FULL =
  "The database's disk is full, so nothing was recorded. Reads still work. Free space on the database's disk (or ask the server's operator to); " +
  'writes are taken again as soon as there is room, with no restart. Retry then.';

/** What a caller reads when the database file is damaged: no retry helps; an operator restores it. */
export const DATABASE_DAMAGED =
  'The database file is damaged, so nothing was recorded. Retrying will not help: the server\'s operator must stop it and restore the last backup ' +
  '(taskbase restore <backup>; docs/operations.md).';

/** The disk under the database is full: SQLite's SQLITE_FULL, PostgreSQL's disk_full (53100). */
export function isDiskFull(error: unknown): boolean {
  return causes(error).some((cause) => cause.code === 'SQLITE_FULL' || cause.code === '53100');
}

/** The SQLite file is not a database, or its pages do not hold together (a torn copy, a stale -wal beside a restored file). */
export function isDatabaseDamaged(error: unknown): boolean {
  return causes(error).some((cause) => typeof cause.code === 'string' && /^SQLITE_(CORRUPT|NOTADB)/.test(cause.code));
}

/** The words for an error isDatabaseUnavailable accepted: a full disk and a damaged file say what fixes them. */
export function unavailableMessage(error: unknown): string {
  if (isDiskFull(error)) return DISK_FULL;
  if (isDatabaseDamaged(error)) return DATABASE_DAMAGED;
  return DATABASE_UNAVAILABLE;
}

/** The error and each error it wraps, outermost first. */
function causes(error: unknown): DriverError[] {
  const seen: DriverError[] = [];
  for (let cause = error; cause && typeof cause === 'object' && !seen.includes(cause as DriverError); ) {
    seen.push(cause as DriverError);
    const next = cause as DriverError;
    cause = next.driverError ?? next.originalError ?? next.cause;
  }
  return seen;
}

interface DriverError { code?: unknown; message?: unknown; driverError?: unknown; originalError?: unknown; cause?: unknown }

/** Socket errors from pg's connection to the server. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EPIPE', 'EAI_AGAIN']);
/**
 * PostgreSQL SQLSTATEs: admin/crash shutdown, cannot connect now, too many
 * connections, disk full; and the session timeouts (postgres-session.ts): a
 * session ended idle in its transaction (25P03) or idle (57P05), a lock wait
 * (55P03) or a statement (57014) that ran out of time. Each rolled the
 * transaction back, and retrying is the fix. Class 08 (connection exception)
 * is matched whole.
 */
const POSTGRES_STATES = new Set(['57P01', '57P02', '57P03', '53300', '53100', '25P03', '57P05', '55P03', '57014']);
/** pg's own words for a connection that went away or never came (it gives these no code). */
const POSTGRES_GONE = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended)/;
/** SQLite result codes (better-sqlite3's SqliteError.code): the file cannot be opened, read, written or locked. */
const SQLITE_CODES = /^SQLITE_(CANTOPEN|IOERR|READONLY|FULL|BUSY|NOTADB|CORRUPT)/;

function unavailableHere(error: DriverError): boolean {
  const code = typeof error.code === 'string' ? error.code : '';
  const message = typeof error.message === 'string' ? error.message : '';
  if (NETWORK_CODES.has(code) || POSTGRES_STATES.has(code) || /^08/.test(code) || SQLITE_CODES.test(code)) return true;
  // ALTER DATABASE … ALLOW_CONNECTIONS false answers 55000 (object not in prerequisite state) with this text.
  if (code === '55000' && /not currently accepting connections/.test(message)) return true;
  return POSTGRES_GONE.test(message);
}
