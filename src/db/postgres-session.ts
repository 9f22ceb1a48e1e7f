import { wholeNumberSetting } from '../domain/whole-number-setting.js';

/**
 * How long one PostgreSQL session may hold everyone else up. A server that
 * stops mid-transaction (a GC pause, a frozen VM, SIGSTOP, a partition)
 * keeps its row locks, and on one hot row every server waits behind it:
 * PostgreSQL ends such a session after `idleInTransactionMs` (its
 * transaction rolls back, so it records nothing, and the paused server
 * answers UNAVAILABLE once it resumes), a lock wait gives up after
 * `lockTimeoutMs`, a statement after `statementTimeoutMs`, and TCP keepalive
 * (both ends) notices a peer that vanished after about `keepAliveSeconds`
 * times four. Every timeout is answered UNAVAILABLE ("retry"), and what
 * timed out recorded nothing.
 */
export interface PostgresSessionSettings {
  /** TASKBASE_PG_IDLE_IN_TRANSACTION_MS: a session idle inside a transaction this long is ended. */
  idleInTransactionMs: number;
  /** TASKBASE_PG_LOCK_TIMEOUT_MS: a statement waiting this long for a lock gives up. */
  lockTimeoutMs: number;
  /** TASKBASE_PG_STATEMENT_TIMEOUT_MS: a statement running this long is cancelled. */
  statementTimeoutMs: number;
  /** TASKBASE_PG_KEEPALIVE_S: idle seconds before TCP keepalive probes a connection, and the spacing of further probes. */
  keepAliveSeconds: number;
}

/**
 * Transactions here are a few statements sent back to back, so 5 s idle
 * inside one means the process stalled (a busy event loop on a loaded
 * machine can leave one idle for a second or two, which must not fail it);
 * another server's writer waits at most that long for its row locks. A lock
 * wait may outlast it (6 s), so a waiter behind a stalled holder gets the
 * row when the holder is ended rather than an error. Statements take
 * milliseconds; 30 s cancels a runaway without cutting off a large read.
 */
export const DEFAULT_POSTGRES_SESSION: PostgresSessionSettings = {
  idleInTransactionMs: 5_000,
  lockTimeoutMs: 6_000,
  statementTimeoutMs: 30_000,
  keepAliveSeconds: 5,
};

export function loadPostgresSessionSettings(env: NodeJS.ProcessEnv): PostgresSessionSettings {
  const ms = (name: string, fallback: number, what: string) =>
    wholeNumberSetting(name, env[name], fallback, { min: 100, max: 3_600_000, accepts: `milliseconds from 100 to 3600000 (${what}; default ${fallback})` });
  return {
    idleInTransactionMs: ms('TASKBASE_PG_IDLE_IN_TRANSACTION_MS', DEFAULT_POSTGRES_SESSION.idleInTransactionMs, 'a PostgreSQL session idle inside a transaction this long is ended and its transaction rolled back'),
    lockTimeoutMs: ms('TASKBASE_PG_LOCK_TIMEOUT_MS', DEFAULT_POSTGRES_SESSION.lockTimeoutMs, 'a statement waiting this long for a row lock gives up'),
    statementTimeoutMs: ms('TASKBASE_PG_STATEMENT_TIMEOUT_MS', DEFAULT_POSTGRES_SESSION.statementTimeoutMs, 'a statement running this long is cancelled'),
    keepAliveSeconds: wholeNumberSetting('TASKBASE_PG_KEEPALIVE_S', env.TASKBASE_PG_KEEPALIVE_S, DEFAULT_POSTGRES_SESSION.keepAliveSeconds, {
      min: 1, max: 3_600, accepts: `seconds from 1 to 3600 (idle time before TCP keepalive probes a PostgreSQL connection; default ${DEFAULT_POSTGRES_SESSION.keepAliveSeconds})`,
    }),
  };
}

/**
 * node-postgres options that put the settings in every connection's startup
 * packet, so each pooled connection has them from its first statement. The
 * server's own keepalive (tcp_keepalives_*) ends a session whose client
 * vanished; the client's ends a connection whose server did.
 */
export function postgresSessionOptions(settings: PostgresSessionSettings): Record<string, unknown> {
  const { keepAliveSeconds: idle } = settings;
  return {
    idle_in_transaction_session_timeout: settings.idleInTransactionMs,
    lock_timeout: settings.lockTimeoutMs,
    statement_timeout: settings.statementTimeoutMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: idle * 1000,
    options: `-c tcp_keepalives_idle=${idle} -c tcp_keepalives_interval=${idle} -c tcp_keepalives_count=3`,
  };
}
