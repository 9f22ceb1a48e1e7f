import { loadConnectionLimits, type ConnectionLimits } from './connection-limits.js';
import type { SqliteSynchronous } from './db/data-source.js';
import { loadOriginPolicy, type OriginPolicy } from './origin-policy.js';
import { loadSubscriptionLimits, type SubscriptionLimits } from './subscription-limits.js';

/** Configuration from the environment; DESIGN.md's table, with defaults. */
export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  /** SQLite's durability (TASKBASE_SQLITE_SYNCHRONOUS=normal|full): what a power loss may lose, see SqliteSynchronous. */
  sqliteSynchronous: SqliteSynchronous;
  /** Bearer tokens; empty means auth is off. A token ending in ":read" may only read. */
  tokens: string[];
  /** Largest request body accepted, in bytes. */
  bodyLimit: number;
  logLevel: string;
  /** Timeouts and connection caps (TASKBASE_*_TIMEOUT_MS, TASKBASE_MAX_CONNECTIONS*). */
  connections: ConnectionLimits;
  /** Which Host and Origin headers are answered (TASKBASE_ALLOWED_HOSTS, TASKBASE_ALLOWED_ORIGINS). */
  origins: OriginPolicy;
  /** Caps on WebSocket sockets and subscriptions (TASKBASE_WS_MAX_*). */
  subscriptions: SubscriptionLimits;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const host = env.HOST ?? '127.0.0.1';
  return {
    port: Number(env.PORT ?? 4000),
    host,
    databaseUrl: env.DATABASE_URL ?? 'sqlite:data/taskbase.sqlite',
    sqliteSynchronous: sqliteSynchronous(env.TASKBASE_SQLITE_SYNCHRONOUS),
    tokens: (env.TASKBASE_TOKENS ?? '').split(',').map((t) => t.trim()).filter(Boolean),
    bodyLimit: Number(env.TASKBASE_BODY_LIMIT ?? 1_048_576),
    logLevel: env.LOG_LEVEL ?? (env.NODE_ENV === 'test' ? 'silent' : 'info'),
    connections: loadConnectionLimits(env),
    origins: loadOriginPolicy(env, host),
    subscriptions: loadSubscriptionLimits(env),
  };
}

function sqliteSynchronous(value: string | undefined): SqliteSynchronous {
  const chosen = (value ?? 'normal').trim().toLowerCase();
  if (chosen === 'normal' || chosen === 'full') return chosen;
  throw new Error(`TASKBASE_SQLITE_SYNCHRONOUS is "normal" or "full"; got "${value}"`);
}
