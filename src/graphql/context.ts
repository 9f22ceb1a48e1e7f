import { isDomainError } from '../domain/errors.js';
import type { Services } from '../services/index.js';
import { POLLED_WAKEUPS, type WorkWakeups } from '../services/claims/work-wakeups.js';
import type { Access, Caller } from '../services/kernel/unit-of-work.js';
import { newBudget, type ExecutionBudget } from './execution/execution-budget.js';
import { createLoaders, type Loaders } from './loaders.js';

export type { Access };

/** What every resolver gets: who calls, what they may do, the services, this request's loaders and what it may still spend. */
export interface Context {
  caller: Caller;
  access: Access;
  services: Services;
  loaders: Loaders;
  budget: ExecutionBudget;
  /**
   * Set when the answer shows a live claim, or the ready queue (which leaves
   * claimed items out): it then holds only until a claim expires, which
   * commits nothing, so it is not kept until the next commit
   * (repeated-queries.ts). Every other read answers committed rows alone.
   */
  showsLiveClaims: boolean;
  /** The committed version read before any row of this request, when a kept answer's check read it (repeated-queries.ts). */
  committedVersion: string | null;
  /** What a claimNext with waitSeconds wakes on: the server's change feed (work-wakeups.ts). */
  wakeups: WorkWakeups;
}

/** Stands for a chat key that names no session: it can be no session's id (it has spaces), so a write with it is refused with NO_SESSION. */
const UNKNOWN_KEY = 'x-session-key names no session';

/**
 * The session a request acts as: x-session-id as sent, else the session
 * its x-session-key (a chat's key, as `taskbase mcp --session-key` and
 * x-session-key over /mcp use it) names for this token. A key that names
 * none, or that no chat can have, names no session: a write is refused
 * with NO_SESSION and nothing is started.
 */
export async function sessionHeaderOf(
  services: Services,
  headers: Record<string, string | string[] | undefined>,
  principal: string | null,
): Promise<string | string[] | undefined> {
  const key = (Array.isArray(headers['x-session-key']) ? headers['x-session-key'][0] : headers['x-session-key'])?.trim();
  if (headers['x-session-id'] !== undefined || !key) return headers['x-session-id'];
  const id = await services.sessionReader.sessionIdForKey(principal, key).catch((error: unknown) => {
    if (isDomainError(error)) return null;
    throw error;
  });
  return id ?? UNKNOWN_KEY;
}

export function createContext(
  services: Services,
  sessionHeader: string | string[] | undefined,
  access: Access = 'write',
  principal: string | null = null,
  /** Without a change feed (a context outside a server), a waiting claimNext looks again every second. */
  wakeups: WorkWakeups = POLLED_WAKEUPS,
): Context {
  // Kept as sent, whatever its length: a header naming no session is not "no header". The services check it (Writer.run):
  // a write with one is refused with NO_SESSION and records nothing; a read just finds no session by it.
  const sessionId = (Array.isArray(sessionHeader) ? sessionHeader[0] : sessionHeader)?.trim() || null;
  const budget = newBudget();
  return { caller: { sessionId, principal }, access, services, loaders: createLoaders(services, budget), budget, showsLiveClaims: false, committedVersion: null, wakeups };
}
