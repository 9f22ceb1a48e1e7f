import 'reflect-metadata';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { Database, type OpenOptions } from './db/database.js';
import { createLogger } from './logger.js';
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
  const db = await Database.open(config.databaseUrl, { onReadQuery: options.onReadQuery, onQuery: options.onQuery });
  const services = createServices(db, options);
  let server: RunningServer;
  try {
    server = await startServer(config, services, logger);
  } catch (error) {
    await db.close();
    throw error;
  }
  return {
    services,
    server,
    logger,
    close: async () => {
      await server.stop();
      await db.close();
    },
  };
}
