/**
 * Whether an error means the database cannot be reached or written at all
 * (as opposed to a query that failed): PostgreSQL down, refusing
 * connections or dropping them; a SQLite file that cannot be opened, read
 * or written. Those are answered UNAVAILABLE ("retry"), every other
 * unexpected error INTERNAL_SERVER_ERROR. Checked on the error and what it
 * wraps (TypeORM's QueryFailedError keeps the driver's error as driverError).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>();
  for (let cause = error; cause && typeof cause === 'object' && !seen.has(cause); ) {
    seen.add(cause);
    if (unavailableHere(cause as DriverError)) return true;
    const next: DriverError = cause as DriverError;
    cause = next.driverError ?? next.originalError ?? next.cause;
  }
  return false;
}

/** What an agent reads when the database is unavailable: nothing was recorded, and retrying is the fix. */
export const DATABASE_UNAVAILABLE =
  'The database cannot be reached right now, so nothing was read or recorded. Retry in a few seconds; the server reconnects by itself once the database is back.';

interface DriverError { code?: unknown; message?: unknown; driverError?: unknown; originalError?: unknown; cause?: unknown }

/** Socket errors from pg's connection to the server. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EPIPE', 'EAI_AGAIN']);
/** PostgreSQL SQLSTATEs: admin/crash shutdown, cannot connect now, too many connections. Class 08 (connection exception) is matched whole. */
const POSTGRES_STATES = new Set(['57P01', '57P02', '57P03', '53300']);
/** pg's own words for a connection that went away or never came (it gives these no code). */
const POSTGRES_GONE = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended)/;
/** SQLite result codes (better-sqlite3's SqliteError.code): the file cannot be opened, read, written or locked. */
const SQLITE_CODES = /^SQLITE_(CANTOPEN|IOERR|READONLY|FULL|BUSY|NOTADB)/;

function unavailableHere(error: DriverError): boolean {
  const code = typeof error.code === 'string' ? error.code : '';
  const message = typeof error.message === 'string' ? error.message : '';
  if (NETWORK_CODES.has(code) || POSTGRES_STATES.has(code) || /^08/.test(code) || SQLITE_CODES.test(code)) return true;
  // ALTER DATABASE … ALLOW_CONNECTIONS false answers 55000 (object not in prerequisite state) with this text.
  if (code === '55000' && /not currently accepting connections/.test(message)) return true;
  return POSTGRES_GONE.test(message);
}
