import 'reflect-metadata';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { assertSqliteWhole } from '../db/sqlite-files.js';
import { Database, type OpenOptions } from '../db/database.js';
import { claimSqliteFile, ownerNotice } from '../db/sqlite-owner.js';
import { PostgresWakeups } from '../services/kernel/changes/pg-change-feed.js';
import { createLogger } from '../logger.js';
import { LogChangeFeed, POLL_MS } from '../services/kernel/changes/change-feed.js';
import { pruneChanges } from '../services/kernel/changes/change-log.js';
import { startServer, type RunningServer } from './server.js';
import { createServices, type ServiceOptions, type Services } from '../services/index.js';
import { WebhookDispatcher } from '../services/webhooks/webhook-dispatcher.js';
import { httpSender } from '../services/webhooks/webhook-sender.js';

export interface App {
  services: Services;
  server: RunningServer;
  logger: Logger;
  close(): Promise<void>;
}

/** Opens the database (migrating it), builds the services and serves HTTP. */
export async function startApp(config: Config, options: ServiceOptions & OpenOptions = {}): Promise<App> {
  const logger = createLogger(config.logLevel);
  // Before migrating: a second server on a SQLite file is refused before it touches it.
  const owner = claimSqliteFile(config.databaseUrl);
  let db: Database;
  try {
    // A damaged file (a torn copy, a backup put back beside a stale -wal) is refused before anything is served from it.
    if (owner) assertSqliteWhole(owner.file);
    db = await Database.open(config.databaseUrl, {
      onReadQuery: options.onReadQuery, onQuery: options.onQuery, synchronous: config.sqliteSynchronous, postgresSession: config.postgresSession,
      checkpointsInBackground: { walLimitBytes: config.sqliteWalLimitMb * 1024 * 1024 },
      onCheckpointFailure: (reason) => logger.warn({ reason }, 'background WAL checkpoints stopped; the writer checkpoints inside its commits again'),
      onWalBlocked: () => logger.warn('the SQLite WAL is past TASKBASE_SQLITE_WAL_LIMIT_MB but another connection to the file (a read or write by another process) kept it from starting over; it grows until that ends'),
    });
  } catch (error) {
    owner?.release();
    throw error;
  }
  const services = createServices(db, { ...options, webhookAllowedHosts: config.webhooks.allowedHosts, keepReads: config.keepReads });
  // Subscriptions hear every writer through the change log: on PostgreSQL NOTIFY wakes the feed, on SQLite it polls.
  const feed = new LogChangeFeed(() => db.tail(), services.commits, {
    pollMs: POLL_MS[db.kind],
    idsKnownAtCommit: db.kind === 'sqlite',
    wakeups: db.kind === 'postgres' ? new PostgresWakeups(config.databaseUrl, logger) : null,
    onError: (error) => logger.warn({ err: error }, 'could not read the change log; trying again from the same change'),
  });
  let server: RunningServer;
  try {
    await feed.ready();
    server = await startServer(config, services, logger, feed);
  } catch (error) {
    await feed.close();
    await db.close();
    owner?.release();
    throw error;
  }
  const retention = keepChangeLog(services, config, logger);
  const expiries = tellClaimExpiries(services, logger);
  const webhooks = deliverWebhooks(services, config, logger);
  webhooks.start(feed);
  const stopHearingCreated = services.webhooks.onCreated(() => webhooks.hooksChanged());
  if (owner) {
    // A server bound to every interface is reached on loopback by the processes beside it.
    const url = /^http:\/\/(0\.0\.0\.0|\[?::\]?):/.test(server.url) ? server.url.replace(/^http:\/\/[^/]*:(\d+)$/, 'http://127.0.0.1:$1') : server.url;
    owner.publish(`${url}/graphql`);
    logger.info({ database: owner.file }, ownerNotice());
  }
  return {
    services,
    server,
    logger,
    close: async () => {
      await retention.stop();
      await expiries.stop();
      stopHearingCreated();
      await webhooks.close();
      await server.stop();
      await feed.close();
      await db.close();
      owner?.release();
    },
  };
}

/**
 * Every server delivers webhooks from the shared outbox (one server per
 * delivery at a time, by its lease), woken by each change its feed hears.
 */
function deliverWebhooks(services: Services, config: Config, logger: Logger): WebhookDispatcher {
  const { allowedHosts, timeoutMs } = config.webhooks;
  return new WebhookDispatcher(services.db, {
    ...config.webhooks,
    clock: services.clock,
    send: httpSender({ allowedHosts, timeoutMs, now: services.clock }),
    onError: (error) => logger.warn({ err: error }, 'could not deliver webhooks; trying again'),
    onAttempt: (attempt) => {
      if (attempt.gaveUp) logger.warn(attempt, 'a webhook delivery failed every attempt; the webhook is now inactive');
      else logger.debug(attempt, 'webhook delivery attempted');
    },
  });
}

/** How often a server prunes the change log (and once at start). */
const PRUNE_EVERY_MS = 60_000;

/**
 * Keeps the change log within TASKBASE_CHANGE_LOG_DAYS and _ROWS: pruned at
 * start and then every minute, in small batches (pruneChanges). On
 * PostgreSQL every server does it; deleting what another already deleted
 * costs nothing.
 */
function keepChangeLog(services: Services, config: Config, logger: Logger): { stop(): Promise<void> } {
  let running: Promise<void> | null = null;
  let stopped = false;
  const prune = () => {
    if (running) return;
    running = pruneChanges(services.db, config.changeLog, services.clock()).then(
      (deleted) => { if (deleted > 0) logger.info({ deleted, retention: config.changeLog }, 'pruned the change log'); },
      (error) => { if (!stopped) logger.warn({ err: error }, 'could not prune the change log; trying again later'); },
    ).finally(() => { running = null; });
  };
  prune();
  const timer = setInterval(() => { if (!stopped) prune(); }, PRUNE_EVERY_MS);
  timer.unref();
  return {
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}

/** How often a server looks for leases that ran out. */
const EXPIRY_SWEEP_EVERY_MS = 1_000;

/**
 * Tells each lease that runs out as an ITEM_CLAIM_EXPIRED change
 * (services/claims/claim-expiry.ts), about a second after it ends: every
 * server sweeps, and each expiry is told once whichever does.
 */
function tellClaimExpiries(services: Services, logger: Logger): { stop(): Promise<void> } {
  let running: Promise<void> | null = null;
  let stopped = false;
  let failing = false;
  const sweep = () => {
    if (running) return;
    running = services.claimExpiries.sweep().then(
      () => { failing = false; },
      (error) => {
        // Once per run of failures: the database may be away for a while, and the sweep tries every second.
        if (!stopped && !failing) logger.warn({ err: error }, 'could not tell the claims that expired; trying again every second');
        failing = true;
      },
    ).finally(() => { running = null; });
  };
  const timer = setInterval(() => { if (!stopped) sweep(); }, EXPIRY_SWEEP_EVERY_MS);
  timer.unref();
  return {
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
