import { DomainError } from './errors.js';

/** Helper sessions one session may start (Session.children lists them all, so the list needs a bound). */
export const HELPERS_PER_SESSION_MAX = 100;

/**
 * Domains one session keeps for its reminders. An agent names a handful; past
 * this many, a newly named domain is not recorded (the call itself goes on),
 * so Session.domains and a reminder read a bounded list.
 */
export const DOMAINS_PER_SESSION_MAX = 100;

/** The most sessions Query.recentSessions lists in one call. */
export const RECENT_SESSIONS_MAX = 100;

/** TOO_LARGE when a session that already has `helpers` helpers would get one more past the limit. */
export function checkHelperCount(parentId: string, helpers: number): void {
  if (helpers < HELPERS_PER_SESSION_MAX) return;
  throw new DomainError(
    'TOO_LARGE',
    `Session ${parentId} already has ${helpers} helper sessions, the most one session may start. ` +
      'Start the helper under one of its helpers (parentId), or without a parent.',
    { sessionId: parentId, count: helpers },
  );
}
