import { DomainError } from './errors.js';

/** Session ids are made by the server (a UUID is 36 characters); the column holds 64. */
export const SESSION_ID_MAX = 64;

/** What a session id can be: printable ASCII without spaces, as the server makes them. */
const POSSIBLE = /^[!-~]+$/;

/**
 * A session id as sent (a header, an argument, --session, --parent),
 * trimmed; null when it cannot name any session: empty, longer than
 * SESSION_ID_MAX, or holding anything a server-made id never holds (NUL,
 * control characters, spaces, non-ASCII). Such an id is answered as naming
 * nothing before any SQL sees it: PostgreSQL refuses NUL in a parameter, so
 * letting it through would make the same read fail on one database and
 * answer on the other.
 */
export function sessionIdOf(raw: string | null | undefined): string | null {
  const id = raw?.trim();
  if (!id || id.length > SESSION_ID_MAX || !POSSIBLE.test(id)) return null;
  return id;
}

/** The id as a message may quote it: as sent when it could be an id, else only its length (it may be 10,000 characters, or hold NUL). */
function quoted(raw: string): string {
  const id = sessionIdOf(raw);
  return id ? `"${id}"` : `(${[...raw].length} characters, not a session id)`;
}

/**
 * NO_SESSION for a write whose session id (x-session-id, --session) names no
 * started session: the write is refused rather than recorded as nobody's,
 * and the id is never written anywhere.
 */
export function unknownSession(raw: string): DomainError {
  return new DomainError(
    'NO_SESSION',
    `The session id sent with this call (x-session-id, or --session) ${quoted(raw)} names no started session, so nothing was recorded. ` +
      'Send the id startSession returned (a plan tool answers it as sessionId), or send none to act without a session.',
    { sessionId: raw },
  );
}

/**
 * NOT_FOUND for a parentId (x-parent-session-id, --parent) that names no
 * session this caller may see: one that does not exist, or one another
 * bearer token started. Both get these words, so the answer does not tell
 * another token's session from no session.
 */
export function parentNotFound(raw: string): DomainError {
  return new DomainError(
    'NOT_FOUND',
    `No session has the id ${quoted(raw)}. Pass the id startSession returned for the parent session (started with your own token), or leave parentId out.`,
    { sessionId: raw, field: 'parentId' },
  );
}
