import 'reflect-metadata';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { Database, type OpenOptions } from './db/database.js';
import { claimSqliteFile } from './db/sqlite-owner.js';
import { PostgresChangeFeed } from './db/pg-change-feed.js';
import { createLogger } from './logger.js';
import { LocalChangeFeed, type ChangeFeed } from './services/kernel/change-feed.js';
import { startServer, type RunningServer } from './server.js';
import { createServices, type ServiceOptions, type Services } from './services/index.js';

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
    db = await Database.open(config.databaseUrl, {
      onReadQuery: options.onReadQuery, onQuery: options.onQuery, synchronous: config.sqliteSynchronous,
    });
  } catch (error) {
    owner?.release();
    throw error;
  }
  const services = createServices(db, options);
  // On PostgreSQL every server process hears every other's changes (LISTEN/NOTIFY); on SQLite there is one process.
  const feed: ChangeFeed = db.kind === 'postgres' ? new PostgresChangeFeed(config.databaseUrl, services.bus, logger) : new LocalChangeFeed(services.bus);
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
  if (owner) {
    // A server bound to every interface is reached on loopback by the processes beside it.
    const url = /^http:\/\/(0\.0\.0\.0|\[?::\]?):/.test(server.url) ? server.url.replace(/^http:\/\/[^/]*:(\d+)$/, 'http://127.0.0.1:$1') : server.url;
    owner.publish(`${url}/graphql`);
    logger.info(
      { database: owner.file },
      'a SQLite file has one server process: this one holds it; other processes (taskbase remind) go through this server, and a second server on the file is refused',
    );
  }
  return {
    services,
    server,
    logger,
    close: async () => {
      await server.stop();
      await feed.close();
      await db.close();
      owner?.release();
    },
  };
}
