import { startApp, type App } from './app.js';
import { benchProbe } from './bench-probe.js';
import { loadConfig, type Config } from './config.js';
import { createLogger } from './logger.js';

/** `npm start`: serve until SIGINT/SIGTERM, then drain and close the database. */
let config: Config;
try {
  config = loadConfig();
} catch (error) {
  // A variable that does not parse is named in one line, before anything starts.
  console.error(`taskbase could not start: ${(error as Error).message}`);
  process.exit(1);
}
let app: App;
try {
  app = await startApp(config, benchProbe());
} catch (error) {
  // An operator's mistake (port taken, bad DATABASE_URL, unwritable folder) is said in one line, then exit 1.
  const reason = (error as NodeJS.ErrnoException).code === 'EADDRINUSE' ? `port ${config.port} on ${config.host} is already in use (set PORT)` : (error as Error).message;
  createLogger(config.logLevel).fatal({ err: error }, `taskbase could not start: ${reason}`);
  process.exit(1);
}
app.logger.info({ url: `${app.server.url}/graphql`, database: app.services.db.kind }, 'taskbase is serving');

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    app.logger.info({ signal }, 'shutting down');
    app.close().then(
      () => process.exit(0),
      (error) => {
        app.logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}
