import { startApp } from './app.js';
import { loadConfig } from './config.js';

/** `npm start`: serve until SIGINT/SIGTERM, then drain and close the database. */
const app = await startApp(loadConfig());
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
