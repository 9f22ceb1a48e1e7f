import { loadConnectionLimits, type ConnectionLimits } from './connection-limits.js';
import type { SqliteSynchronous } from './db/data-source.js';
import type { ChangeLogRetention } from './services/kernel/change-log.js';
import { loadOriginPolicy, type OriginPolicy } from './origin-policy.js';

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
  /** How much of the change log servers keep (TASKBASE_CHANGE_LOG_DAYS, TASKBASE_CHANGE_LOG_ROWS). */
  changeLog: ChangeLogRetention;
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
    changeLog: {
      days: wholeNumber(env, 'TASKBASE_CHANGE_LOG_DAYS', 7, 'days to keep changes in the change log'),
      rows: wholeNumber(env, 'TASKBASE_CHANGE_LOG_ROWS', 100_000, 'changes the change log keeps at most'),
    },
  };
}

/** A whole number from 1 up, or the default when unset; anything else names the variable and what it takes. */
function wholeNumber(env: NodeJS.ProcessEnv, name: string, fallback: number, meaning: string): number {
  const value = env[name];
  if (value === undefined || value.trim() === '') return fallback;
  const number = /^\s*\d{1,15}\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(number) || number < 1) throw new Error(`${name} is a whole number from 1 up (${meaning}; default ${fallback}); got "${value}"`);
  return number;
}

function sqliteSynchronous(value: string | undefined): SqliteSynchronous {
  const chosen = (value ?? 'normal').trim().toLowerCase();
  if (chosen === 'normal' || chosen === 'full') return chosen;
  throw new Error(`TASKBASE_SQLITE_SYNCHRONOUS is "normal" or "full"; got "${value}"`);
}
