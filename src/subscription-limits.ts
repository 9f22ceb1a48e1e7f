import { wholeNumberSetting } from './domain/whole-number-setting.js';

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
}

/** The variables of README's configuration table, with their defaults. */
const VARIABLES: Record<keyof SubscriptionLimits, [name: string, fallback: number]> = {
  maxSocketsPerClient: ['TASKBASE_WS_MAX_SOCKETS_PER_CLIENT', 64],
  maxSocketsPerToken: ['TASKBASE_WS_MAX_SOCKETS_PER_TOKEN', 64],
  maxSockets: ['TASKBASE_WS_MAX_SOCKETS', 1_024],
  maxSubscriptionsPerSocket: ['TASKBASE_WS_MAX_SUBSCRIPTIONS_PER_SOCKET', 32],
};

export function loadSubscriptionLimits(env: NodeJS.ProcessEnv): SubscriptionLimits {
  const limits = {} as SubscriptionLimits;
  for (const [key, [name, fallback]] of Object.entries(VARIABLES) as [keyof SubscriptionLimits, [string, number]][]) {
    limits[key] = wholeNumberSetting(name, env[name], fallback);
  }
  return limits;
}
