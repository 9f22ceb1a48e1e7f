import type { Server } from 'node:http';
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import { expressMiddleware } from '@as-integrations/express5';
import express, { type ErrorRequestHandler } from 'express';
import http from 'node:http';
import type { Logger } from 'pino';
import { bearerAuth, tokenTable } from './auth.js';
import { serveDashboard } from './dashboard.js';
import type { Config } from './config.js';
import { createContext, type Context } from './graphql/context.js';
import { createErrorFormatter } from './graphql/errors.js';
import { requestLimits } from './graphql/request-limits.js';
import { createSchema } from './graphql/schema.js';
import { serveLiveChanges } from './graphql/subscriptions/live.js';
import { createChangePubSub } from './graphql/subscriptions/topics.js';
import type { Services } from './services/index.js';
import { LocalChangeFeed, type ChangeFeed } from './services/kernel/change-feed.js';

export interface RunningServer {
  url: string;
  port: number;
  http: Server;
  stop(): Promise<void>;
}

/** A JSON error body in the GraphQL shape, for failures before GraphQL runs (body too large, bad JSON). */
function httpErrorBody(message: string, code: string) {
  return { errors: [{ message, extensions: { code } }] };
}

/**
 * The HTTP layer: POST /graphql (Apollo over express) behind bearer-token
 * auth when TASKBASE_TOKENS is set, GET /healthz (always open), a body size
 * limit, request limits checked before execution, and error bodies that
 * never carry a stack.
 */
export async function startServer(
  config: Config, services: Services, logger: Logger, feed: ChangeFeed = new LocalChangeFeed(services.bus),
): Promise<RunningServer> {
  const tokens = tokenTable(config.tokens);
  logger.info({ auth: tokens.size > 0 ? `${tokens.size} bearer token(s)` : 'off' }, 'authentication');
  const app = express();
  app.disable('x-powered-by');
  const httpServer = http.createServer(app);
  const pubSub = createChangePubSub();
  const schema = await createSchema(pubSub);
  const apollo = new ApolloServer<Context>({
    schema,
    formatError: createErrorFormatter(logger),
    includeStacktraceInErrorResponses: false,
    // main.ts drains and closes on SIGINT/SIGTERM; Apollo's own handler would race it (its second stop() never resolves).
    stopOnTerminationSignals: false,
    plugins: [ApolloServerPluginDrainHttpServer({ httpServer }), requestLimits()],
  });
  await apollo.start();
  const stopLive = serveLiveChanges({ httpServer, schema, pubSub, feed, services, tokens, logger });

  app.get('/healthz', async (_req, res) => {
    try {
      await services.db.reader.query('SELECT 1');
      res.json({ status: 'ok', database: services.db.kind });
    } catch (error) {
      logger.error({ err: error }, 'health check failed');
      res.status(503).json({ status: 'unavailable' });
    }
  });

  app.use(
    '/graphql',
    bearerAuth(tokens),
    express.json({ limit: config.bodyLimit }),
    expressMiddleware(apollo, {
      context: async ({ req, res }) => createContext(services, req.headers['x-session-id'], res.locals.access),
    }),
  );

  serveDashboard(app);

  const onError: ErrorRequestHandler = (error, _req, res, _next) => {
    const status = typeof error?.status === 'number' ? error.status : 500;
    if (error?.type === 'entity.too.large') {
      res.status(413).json(httpErrorBody(`The request body is over ${config.bodyLimit} bytes. Send smaller batches (at most 100 items per call).`, 'TOO_LARGE'));
    } else if (error?.type === 'entity.parse.failed') {
      res.status(400).json(httpErrorBody('The request body is not valid JSON. Send {"query": "...", "variables": {...}} as application/json.', 'BAD_REQUEST'));
    } else if (status < 500) {
      res.status(status).json(httpErrorBody('The request could not be read. Send a GraphQL request as application/json.', 'BAD_REQUEST'));
    } else {
      logger.error({ err: error }, 'unhandled HTTP error');
      res.status(500).json(httpErrorBody('Internal server error.', 'INTERNAL_SERVER_ERROR'));
    }
  };
  app.use(onError);

  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(config.port, config.host, () => resolve());
  });
  const address = httpServer.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host}:${port}`;
  return {
    url,
    port,
    http: httpServer,
    stop: async () => {
      await stopLive();
      await apollo.stop();
    },
  };
}
