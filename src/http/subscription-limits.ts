import { wholeNumberSetting } from '../domain/whole-number-setting.js';

/**
 * How much of the server live updates may hold. A socket and each of its
 * subscriptions stay open for as long as the client likes and are executed
 * again on every change they hear, so without caps one client (a read-only
 * token included) could hold enough of them to stall every write. A
 * dashboard tab holds one socket and a few subscriptions; many tabs on one
 * task are normal, and these caps are what bounds them.
 */
export interface SubscriptionLimits {
  /** Open WebSocket sockets one client address may hold; the next upgrade is refused with 429. */
  maxSocketsPerClient: number;
  /** Open sockets one bearer token may hold (checked at connection_init); the next is closed with 4429. */
  maxSocketsPerToken: number;
  /** Open sockets in all; the next upgrade is refused with 503. */
  maxSockets: number;
  /** Subscriptions one socket may run at once; the next is refused with TOO_LARGE. */
  maxSubscriptionsPerSocket: number;
  /** Subscriptions in all, on every socket; the next is refused with TOO_LARGE, so that a write's fan-out stays bounded. */
  maxSubscriptions: number;
  /**
   * Events being built at once for one token (with auth off, one client) and
   * in all: the rest queue (fan-out.ts). Subscribers with the same document
   * and variables share one execution.
   */
  fanOutExecutionsPerToken: number;
  fanOutExecutions: number;
  /** Bytes of built events not yet written to every socket they go to, for one token and in all: past it, events queue. */
  fanOutBytesPerToken: number;
  fanOutBytes: number;
  /** How long a change may wait for its turn to be built; past it the subscribers it was for get TOO_LARGE and are closed. */
  fanOutWaitMs: number;
}

/** The variables of README's configuration table, with their defaults. */
const VARIABLES: Record<keyof SubscriptionLimits, [name: string, fallback: number]> = {
  maxSocketsPerClient: ['TASKBASE_WS_MAX_SOCKETS_PER_CLIENT', 64],
  maxSocketsPerToken: ['TASKBASE_WS_MAX_SOCKETS_PER_TOKEN', 64],
  maxSockets: ['TASKBASE_WS_MAX_SOCKETS', 1_024],
  maxSubscriptionsPerSocket: ['TASKBASE_WS_MAX_SUBSCRIPTIONS_PER_SOCKET', 32],
  maxSubscriptions: ['TASKBASE_WS_MAX_SUBSCRIPTIONS', 4_096],
  fanOutExecutionsPerToken: ['TASKBASE_WS_FANOUT_EXECUTIONS_PER_TOKEN', 1],
  fanOutExecutions: ['TASKBASE_WS_FANOUT_EXECUTIONS', 4],
  fanOutBytesPerToken: ['TASKBASE_WS_FANOUT_BYTES_PER_TOKEN', 32 * 1024 * 1024],
  fanOutBytes: ['TASKBASE_WS_FANOUT_BYTES', 128 * 1024 * 1024],
  fanOutWaitMs: ['TASKBASE_WS_FANOUT_WAIT_MS', 10_000],
};

export function loadSubscriptionLimits(env: NodeJS.ProcessEnv): SubscriptionLimits {
  const limits = {} as SubscriptionLimits;
  for (const [key, [name, fallback]] of Object.entries(VARIABLES) as [keyof SubscriptionLimits, [string, number]][]) {
    limits[key] = wholeNumberSetting(name, env[name], fallback);
  }
  return limits;
}
