import dns from 'node:dns/promises';
import net from 'node:net';
import path from 'node:path';
import v8 from 'node:v8';
import type { App } from './server/app.js';
import { loadConfig, type Config } from './config.js';
import { DatabaseDamagedError } from './db/sqlite-files.js';
import { DatabaseInUseError } from './db/sqlite-owner.js';
import { createLogger } from './logger.js';
import { startupFailure } from './startup-failure.js';
import { defaultDatabaseNote } from './package-root.js';
import { databaseKind, sqlitePath } from './db/database-url.js';

/** What `taskbase serve` takes on its command line; each stands for the variable named beside it. */
interface ServeOptions {
  port?: string;
  host?: string;
  database?: string;
}

const FLAGS: Record<keyof ServeOptions, [flag: string, variable: string]> = {
  port: ['--port', 'PORT'],
  host: ['--host', 'HOST'],
  database: ['--database', 'DATABASE_URL'],
};

/** Operators' mistakes at start-up, said in their words (no stack: nothing here is a bug). */
const LISTEN_ERRORS: Partial<Record<string, (config: Config) => string>> = {
  EADDRINUSE: (config) => `port ${config.port} on ${config.host} is already in use (set PORT, or stop the other server)`,
  EADDRNOTAVAIL: (config) => `HOST ${config.host} is not an address of this machine (use 127.0.0.1, 0.0.0.0 or one of its addresses)`,
  ENOTFOUND: (config) => `HOST ${config.host} does not resolve to an address (use 127.0.0.1, 0.0.0.0 or a name this machine resolves)`,
  EACCES: (config) => `port ${config.port} needs privileges this process does not have (set PORT to 1024 or above)`,
};

/**
 * `taskbase serve` (and `npm start`): checks the settings, starts the server,
 * says where it answers, and serves until SIGINT/SIGTERM, then drains and
 * closes the database. A bad setting is one line on stderr and exit 1.
 */
export async function serve(options: ServeOptions): Promise<void> {
  const env = { ...process.env };
  for (const [key, [, variable]] of Object.entries(FLAGS) as [keyof ServeOptions, [string, string]][]) {
    if (options[key] !== undefined) env[variable] = options[key];
  }
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (error) {
    let message = (error as Error).message;
    // A value given as a flag is named as the flag the operator typed.
    for (const [key, [flag, variable]] of Object.entries(FLAGS) as [keyof ServeOptions, [string, string]][]) {
      if (options[key] !== undefined && message.startsWith(`${variable} `)) message = `${flag} (${variable})${message.slice(variable.length)}`;
    }
    console.error(`taskbase could not start: ${message}`);
    process.exit(1);
  }
  if (net.isIP(config.host) === 0) {
    // A HOST that names nothing is the operator's to fix; said here, before the HTTP and WebSocket servers try to bind it.
    const resolved = await dns.lookup(config.host).catch(() => null);
    if (!resolved) {
      console.error(`taskbase could not start: ${LISTEN_ERRORS.ENOTFOUND!(config)}`);
      process.exit(1);
    }
  }
  // V8 alone grows the heap up to 4 × what its last full collection kept when allocation runs fast, as under load: at
  // 100,000 tasks and 32 connections that was 290–330 MB of RSS for 80 MB of live data. Twice the live data measured
  // the same CPU per request (BENCHMARKS.md, RSS) at 215–225 MB. V8 reads the flag whenever it sets the next limit.
  if (config.heapGrowthPercent > 0) v8.setFlagsFromString(`--heap-growing-percent=${config.heapGrowthPercent}`);
  // Loaded after the settings are checked: a typo is answered before the ORM and the schema load.
  const [{ startApp }, { benchProbe }] = await Promise.all([import('./server/app.js'), import('./server/bench-probe.js')]);
  let app: App;
  try {
    app = await startApp(config, benchProbe());
  } catch (error) {
    const listen = LISTEN_ERRORS[(error as NodeJS.ErrnoException).code ?? ''];
    const known = listen !== undefined || error instanceof DatabaseInUseError || error instanceof DatabaseDamagedError;
    // One plain line on stderr, whatever went wrong; the stack of what is not an operator's mistake only at LOG_LEVEL=debug.
    console.error(`taskbase could not start: ${listen ? listen(config) : startupFailure(error, config.databaseUrl)}`);
    if (!known) createLogger(config.logLevel).debug({ err: error }, 'why taskbase could not start');
    process.exit(1);
  }
  const base = app.server.url;
  // On stderr, whatever LOG_LEVEL says, as taskbase mcp says it: where the records are.
  const where = databaseKind(config.databaseUrl) === 'postgres' ? 'the database is on PostgreSQL' : `the database is ${path.resolve(sqlitePath(config.databaseUrl))}`;
  process.stderr.write(`taskbase serve: ${where}${defaultDatabaseNote(env)}\n`);
  app.logger.info(
    { dashboard: `${base}/`, graphql: `${base}/graphql`, mcp: `${base}/mcp`, database: app.services.db.kind },
    `taskbase is serving: the dashboard at ${base}/, GraphQL at ${base}/graphql, MCP (Streamable HTTP) at ${base}/mcp`,
  );

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
}
