import { wholeNumberSetting } from '../../domain/whole-number-setting.js';

/**
 * How many MCP sessions over HTTP may be open, and how long an idle one
 * lives. Each open session holds its transport and protocol state in
 * memory, so without a cap one token (a read-only one too) could open
 * sessions until the heap runs out.
 */
export interface McpSessionLimits {
  /** Open sessions in all (TASKBASE_MCP_MAX_SESSIONS); an initialize past it gets 503. */
  maxSessions: number;
  /**
   * Open sessions one bearer token may hold (TASKBASE_MCP_MAX_SESSIONS_PER_TOKEN);
   * with auth off there is no token, and the cap holds per client address.
   * An initialize past it gets 429.
   */
  maxSessionsPerToken: number;
  /** A session no request has named for this long is closed (TASKBASE_MCP_IDLE_MINUTES, in ms here). */
  idleMs: number;
}

const MCP_SESSION_DEFAULTS = { maxSessions: 2_000, maxSessionsPerToken: 100, idleMinutes: 10 } as const;


export function loadMcpSessionLimits(env: NodeJS.ProcessEnv): McpSessionLimits {
  const maxSessions = wholeNumberSetting('TASKBASE_MCP_MAX_SESSIONS', env.TASKBASE_MCP_MAX_SESSIONS, MCP_SESSION_DEFAULTS.maxSessions);
  const maxSessionsPerToken = wholeNumberSetting('TASKBASE_MCP_MAX_SESSIONS_PER_TOKEN', env.TASKBASE_MCP_MAX_SESSIONS_PER_TOKEN, MCP_SESSION_DEFAULTS.maxSessionsPerToken);
  const raw = env.TASKBASE_MCP_IDLE_MINUTES;
  // Minutes, fractions allowed (0.5 is 30 s): tests use a few seconds; an operator has no reason to go below a minute.
  const minutes = raw === undefined || raw.trim() === '' ? MCP_SESSION_DEFAULTS.idleMinutes : Number(raw);
  if (!Number.isFinite(minutes) || minutes * 60_000 < 100) {
    throw new Error(`TASKBASE_MCP_IDLE_MINUTES must be a number of minutes, at least 0.002 (fractions allowed, e.g. 0.5); got "${raw}".`);
  }
  return { maxSessions, maxSessionsPerToken, idleMs: Math.round(minutes * 60_000) };
}

/** "10 minutes", "1 minute", "30 seconds": the idle time as a refusal says it. */
export function idleText(idleMs: number): string {
  if (idleMs >= 60_000 && idleMs % 60_000 === 0) {
    const minutes = idleMs / 60_000;
    return `${minutes} minute${minutes === 1 ? '' : 's'}`;
  }
  const seconds = Math.max(1, Math.round(idleMs / 1000));
  return `${seconds} second${seconds === 1 ? '' : 's'}`;
}
