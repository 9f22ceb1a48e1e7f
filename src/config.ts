import { loadConnectionLimits, type ConnectionLimits } from './http/connection-limits.js';
import type { SqliteSynchronous } from './db/data-source.js';
import { loadPostgresSessionSettings, type PostgresSessionSettings } from './db/postgres-session.js';
import { loadMcpSessionLimits, type McpSessionLimits } from './mcp/transports/session-limits.js';
import type { ChangeLogRetention } from './services/kernel/changes/change-log.js';
import { loadOriginPolicy, type OriginPolicy } from './http/origin-policy.js';
import { loadSubscriptionLimits, type SubscriptionLimits } from './http/subscription-limits.js';
import { loadWebhookSettings, type WebhookSettings } from './http/webhook-settings.js';
import { wholeNumberSetting } from './domain/whole-number-setting.js';
import { defaultDatabaseUrl } from './package-root.js';

/** Configuration from the environment; DESIGN.md's table, with defaults. */
export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  /**
   * Whether reads are kept until anything commits (TASKBASE_KEEP_READS=on|off):
   * off, no read checks the committed version and nothing is kept.
   */
  keepReads: boolean;
  /** SQLite's durability (TASKBASE_SQLITE_SYNCHRONOUS=normal|full): what a power loss may lose, see SqliteSynchronous. */
  sqliteSynchronous: SqliteSynchronous;
  /**
   * How large SQLite's WAL may grow, in MiB, under writes that never pause before they are held for a moment so that
   * it starts over (TASKBASE_SQLITE_WAL_LIMIT_MB; see db/wal-checkpointer.ts).
   */
  sqliteWalLimitMb: number;
  /** PostgreSQL's per-session timeouts and keepalive (TASKBASE_PG_*; see db/postgres-session.ts). */
  postgresSession: PostgresSessionSettings;
  /** Bearer tokens; empty means auth is off. A token ending in ":read" may only read. */
  tokens: string[];
  /** Largest request body accepted, in bytes. */
  bodyLimit: number;
  logLevel: string;
  /** Timeouts and connection caps (TASKBASE_*_TIMEOUT_MS, TASKBASE_MAX_CONNECTIONS*). */
  connections: ConnectionLimits;
  /** Which Host and Origin headers are answered (TASKBASE_ALLOWED_HOSTS, TASKBASE_ALLOWED_ORIGINS). */
  origins: OriginPolicy;
  /** Open MCP sessions over HTTP and their idle time (TASKBASE_MCP_MAX_SESSIONS, TASKBASE_MCP_MAX_SESSIONS_PER_TOKEN, TASKBASE_MCP_IDLE_MINUTES). */
  mcp: McpSessionLimits;
  /** Caps on WebSocket sockets and subscriptions (TASKBASE_WS_MAX_*). */
  subscriptions: SubscriptionLimits;
  /** How much of the change log servers keep (TASKBASE_CHANGE_LOG_DAYS, TASKBASE_CHANGE_LOG_ROWS). */
  changeLog: ChangeLogRetention;
  /** Webhook deliveries: the internal hosts allowed anyway, retries and the timeout (TASKBASE_WEBHOOK_*). */
  webhooks: WebhookSettings;
  /**
   * How far, in percent, V8 lets the JavaScript heap grow past what its last
   * full collection kept before it collects again (TASKBASE_HEAP_GROWTH_PERCENT;
   * 0 leaves V8's own choice, which grows it up to 4 × under a high
   * allocation rate). See serve.ts.
   */
  heapGrowthPercent: number;
}

/**
 * Every variable is parsed strictly, before anything starts: a value that
 * does not parse throws an Error whose one line names the variable and what
 * it accepts (serve prints it and exits 1). The documented list, with
 * defaults and meanings, is ENVIRONMENT in environment.ts.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const host = bindHost(env.HOST);
  return {
    port: wholeNumberSetting('PORT', env.PORT, 4000, { min: 0, max: 65_535, accepts: 'a TCP port from 0 to 65535 (0 picks a free one)' }),
    host,
    databaseUrl: databaseUrl(env.DATABASE_URL, env),
    sqliteSynchronous: sqliteSynchronous(env.TASKBASE_SQLITE_SYNCHRONOUS),
    sqliteWalLimitMb: wholeNumberSetting('TASKBASE_SQLITE_WAL_LIMIT_MB', env.TASKBASE_SQLITE_WAL_LIMIT_MB, 64, {
      max: 1_000_000, accepts: 'a whole number of MiB from 1 up (how large the SQLite WAL may grow under writes that never pause; default 64)',
    }),
    postgresSession: loadPostgresSessionSettings(env),
    keepReads: onOff('TASKBASE_KEEP_READS', env.TASKBASE_KEEP_READS, true),
    tokens: tokenList(env.TASKBASE_TOKENS),
    bodyLimit: wholeNumberSetting('TASKBASE_BODY_LIMIT', env.TASKBASE_BODY_LIMIT, 1_048_576, { accepts: 'a whole number of bytes above 0, e.g. 1048576 for 1 MiB' }),
    logLevel: logLevel(env.LOG_LEVEL, env.NODE_ENV === 'test' ? 'silent' : 'info'),
    connections: loadConnectionLimits(env),
    origins: loadOriginPolicy(env, host),
    mcp: loadMcpSessionLimits(env),
    subscriptions: loadSubscriptionLimits(env),
    changeLog: {
      days: wholeNumberSetting('TASKBASE_CHANGE_LOG_DAYS', env.TASKBASE_CHANGE_LOG_DAYS, 7, { min: 1, max: 1_000_000, accepts: 'a whole number from 1 up (days to keep changes in the change log; default 7)' }),
      rows: wholeNumberSetting('TASKBASE_CHANGE_LOG_ROWS', env.TASKBASE_CHANGE_LOG_ROWS, 100_000, { accepts: 'a whole number from 1 up (changes the change log keeps at most; default 100000)' }),
    },
    webhooks: loadWebhookSettings(env),
    heapGrowthPercent: wholeNumberSetting('TASKBASE_HEAP_GROWTH_PERCENT', env.TASKBASE_HEAP_GROWTH_PERCENT, 50, {
      min: 0, max: 1_000, accepts: "a whole number from 0 to 1000 (percent the JavaScript heap may grow past a full collection's live data; 0 leaves it to V8; default 50)",
    }),
  };
}


/**
 * TASKBASE_TOKENS: unset or empty turns auth off. Set to anything else, it
 * must name at least one token: "," or " " is a mistake that would
 * otherwise quietly leave the server open to everyone.
 */
function tokenList(raw: string | undefined): string[] {
  if (raw === undefined || raw === '') return [];
  const entries = raw.split(',').map((t) => t.trim()).filter(Boolean);
  if (entries.length === 0) {
    throw new Error(`TASKBASE_TOKENS is set but names no token ("${raw}"): list tokens comma-separated (e.g. s3cret,viewer:read), or unset it to turn auth off.`);
  }
  // Each entry's form is checked where the tokens are read (tokenTable in http/auth.ts), in one place.
  return entries;
}

function bindHost(raw: string | undefined): string {
  if (raw === undefined) return '127.0.0.1';
  const host = raw.trim();
  // A name or an address, IPv6 included; whether it can be bound is for listen() to say.
  if (!/^[A-Za-z0-9.:%_-]+$/.test(host)) throw new Error(`HOST must be an address or name to listen on, such as 127.0.0.1, 0.0.0.0, :: or localhost; got "${raw}".`);
  return host;
}

function databaseUrl(raw: string | undefined, env: NodeJS.ProcessEnv): string {
  const url = (raw ?? defaultDatabaseUrl(env)).trim();
  if (url.startsWith('postgres://') || url.startsWith('postgresql://') || (url.startsWith('sqlite:') && url.length > 'sqlite:'.length)) return url;
  throw new Error(`DATABASE_URL must be sqlite:<path> (e.g. sqlite:data/taskbase.sqlite) or postgres://user@host:port/db; got "${raw}".`);
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function logLevel(raw: string | undefined, fallback: string): string {
  if (raw === undefined || raw.trim() === '') return fallback;
  const level = raw.trim().toLowerCase();
  if (!LOG_LEVELS.includes(level)) throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}; got "${raw}".`);
  return level;
}

function onOff(name: string, value: string | undefined, fallback: boolean): boolean {
  const chosen = value?.trim().toLowerCase();
  if (chosen === undefined || chosen === '') return fallback;
  if (chosen === 'on' || chosen === 'off') return chosen === 'on';
  throw new Error(`${name} is "on" or "off"; got "${value}"`);
}

function sqliteSynchronous(value: string | undefined): SqliteSynchronous {
  const chosen = (value ?? 'normal').trim().toLowerCase();
  if (chosen === 'normal' || chosen === 'full') return chosen;
  throw new Error(`TASKBASE_SQLITE_SYNCHRONOUS is "normal" or "full"; got "${value}"`);
}
