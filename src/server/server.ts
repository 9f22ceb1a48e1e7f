import type { Server } from 'node:http';
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import express, { type ErrorRequestHandler } from 'express';
import http from 'node:http';
import type { Logger } from 'pino';
import { accessOf, bearerAuth, knownTokenKey, notFound, principalOf, tokenTable } from '../http/auth.js';
import { serveDashboard } from './dashboard.js';
import { DATABASE_UNAVAILABLE, isDatabaseUnavailable } from '../db/unavailable.js';
import type { Config } from '../config.js';
import { httpServerOptions, limitConnections } from '../http/connection-limits.js';
import { hostAndOriginGuard, httpErrorBody } from '../http/http-edge.js';
import { BAD_JSON, INTERNAL, graphqlRoute, leanGraphQL, type GraphQLHttpOptions } from './graphql-http.js';
import { createContext, sessionHeaderOf, type Context } from '../graphql/context.js';
import { createErrorFormatter, unavailableStatus } from '../graphql/errors.js';
import { executionBudget } from '../graphql/execution/execution-budget.js';
import { readOnlyAccess } from '../graphql/execution/read-only-access.js';
import { requestLimits } from '../graphql/execution/request-limits.js';
import { jitGateway } from '../graphql/execution/jit-executor.js';
import { RepeatedQueries, answerText } from '../graphql/execution/repeated-queries.js';
import { createSchema } from '../graphql/schema.js';
import { landingPage } from './landing-page.js';
import { mcpHttp } from '../mcp/transports/http.js';
import { FeedWorkWakeups } from '../services/claims/work-wakeups.js';
import { serveLiveChanges } from '../graphql/subscriptions/live.js';
import { createChangePubSub } from '../graphql/subscriptions/topics.js';
import type { Services } from '../services/index.js';
import type { ChangeFeed } from '../services/kernel/changes/change-feed.js';

export interface RunningServer {
  url: string;
  port: number;
  http: Server;
  stop(): Promise<void>;
}

/**
 * The HTTP layer: the Host and Origin guard in front of everything, POST
 * /graphql (straight from node:http to Apollo on its lean path,
 * graphql-http.ts, else over express) and /mcp behind bearer-token auth when
 * TASKBASE_TOKENS is set, GET /healthz (always open), a body size limit,
 * request limits checked before execution, the dashboard at GET /, 404 JSON
 * for every other path, and error bodies that never carry a stack.
 */
export async function startServer(
  config: Config, services: Services, logger: Logger, feed: ChangeFeed,
): Promise<RunningServer> {
  const tokens = tokenTable(config.tokens);
  logger.info({ auth: tokens.size > 0 ? `${tokens.size} bearer token(s)` : 'off' }, 'authentication');
  const app = express();
  app.disable('x-powered-by');
  // Set once Apollo has started; until then (and for every other request) express answers.
  let lean: ((req: http.IncomingMessage, res: http.ServerResponse) => boolean) | null = null;
  const httpServer = http.createServer(httpServerOptions(config.connections), (req, res) => {
    if (!lean?.(req, res)) app(req, res);
  });
  limitConnections(httpServer, config.connections, {
    authOn: tokens.size > 0, tokenOf: (authorization) => knownTokenKey(tokens, authorization), bodyLimit: config.bodyLimit,
  });
  const pubSub = createChangePubSub();
  const schema = await createSchema(pubSub);
  const jit = jitGateway(schema);
  // Operations sent again and again run without Apollo's request pipeline once Apollo has answered them (repeated-queries.ts).
  const formatError = createErrorFormatter(logger);
  const repeated = new RepeatedQueries(schema, jit.compiledFor, formatError, config.keepReads);
  const apollo = new ApolloServer<Context>({
    // The schema, executed by graphql-jit (jit-executor.ts).
    gateway: jit.gateway,
    formatError,
    includeStacktraceInErrorResponses: false,
    // One compact JSON.stringify per answer: Apollo's default indents every answer (JSON.stringify(value, null, 2)),
    // 10 % of mustRead's profile at --scale large, and a quarter more bytes to send and compress. The body still
    // ends with a newline, as Apollo's does (a shell prompt after curl, a line-based reader of a keep-alive stream).
    stringifyResult: answerText,
    // main.ts drains and closes on SIGINT/SIGTERM; Apollo's own handler would race it (its second stop() never resolves).
    stopOnTerminationSignals: false,
    // Automatic persisted queries are off: no client of this API sends them, and their cache is per process (a hash
    // registered on one server misses on another). Any persistedQuery extension is PERSISTED_QUERY_NOT_SUPPORTED.
    persistedQueries: false,
    // No cache hints are used; the cache-control plugin would wrap every field of every answer (measured: 25 times slower).
    // Apollo's landing page loads its explorer from a CDN; a browser gets landingPage() instead.
    plugins: [
      ApolloServerPluginDrainHttpServer({ httpServer }), ApolloServerPluginCacheControlDisabled(), ApolloServerPluginLandingPageDisabled(),
      readOnlyAccess(), requestLimits(), executionBudget(), unavailableStatus(), repeated.plugin(),
    ],
  });
  await apollo.start();
  // Before anything else, /healthz included: a rebinding page must not even learn that the server is up.
  app.use(hostAndOriginGuard(config.origins));
  // Sockets check the same tokens as POST /graphql; the subscriptions are handed the check, not the table.
  const auth = {
    authOn: tokens.size > 0,
    accessOf: (authorization: string | undefined) => accessOf(tokens, authorization),
    principalOf: (authorization: string | undefined) => {
      const match = tokens.size > 0 ? /^Bearer\s+(\S+)/i.exec(authorization ?? '') : null;
      return match ? principalOf(match[1]!) : null;
    },
  };
  const stopLive = serveLiveChanges({ httpServer, schema, pubSub, feed, services, auth, origins: config.origins, limits: config.subscriptions, logger });

  app.get('/healthz', async (_req, res) => {
    try {
      await services.db.reader.query('SELECT 1');
      // The database answers; say whether writes can land (a full disk, a damaged file) too.
      const health = services.db.healthReport();
      if (health.status === 'ok') res.json({ status: 'ok', database: services.db.kind });
      else res.status(503).json({ ...health, database: services.db.kind });
    } catch (error) {
      logger.error({ err: error }, 'health check failed');
      res.status(503).json({ status: 'unavailable' });
    }
  });

  // A waiting claimNext (GraphQL waitSeconds, MCP task_next) wakes on the change feed, so it hears work freed by any writer on any server.
  const wakeups = new FeedWorkWakeups(feed);
  const graphql: GraphQLHttpOptions = {
    apollo, repeated, tokens, origins: config.origins, bodyLimit: config.bodyLimit, logger,
    context: async (headers, access, principal) => createContext(services, await sessionHeaderOf(services, headers, principal), access, principal, wakeups),
  };
  lean = leanGraphQL(graphql);
  // The help page holds no data, so a browser sees it with auth on too (like /healthz).
  app.get('/graphql', landingPage());
  app.use('/graphql', bearerAuth(tokens), express.json({ limit: config.bodyLimit }), graphqlRoute(graphql));

  // MCP Streamable HTTP (api/mcp.md): the same tokens and body limit as /graphql.
  const mcp = mcpHttp(services, logger, { limits: config.mcp, origins: config.origins, wakeups });
  app.all('/mcp', bearerAuth(tokens), express.json({ limit: config.bodyLimit }), mcp.handler);
  serveDashboard(app);
  // OAuth discovery (/.well-known/…, /register, /authorize, /token) and every other path: 404 JSON, never the page.
  app.use(notFound());

  const onError: ErrorRequestHandler = (error, _req, res, _next) => {
    const status = typeof error?.status === 'number' ? error.status : 500;
    if (error?.type === 'entity.too.large') {
      res.status(413).json(httpErrorBody(`The request body is over ${config.bodyLimit} bytes. Send smaller batches (at most 100 items per call).`, 'TOO_LARGE'));
    } else if (error?.type === 'entity.parse.failed') {
      res.status(400).json(httpErrorBody(BAD_JSON, 'BAD_REQUEST'));
    } else if (status < 500) {
      res.status(status).json(httpErrorBody('The request could not be read. Send a GraphQL request as application/json.', 'BAD_REQUEST'));
    } else if (isDatabaseUnavailable(error)) {
      logger.warn({ err: error }, 'database unavailable');
      res.status(503).json(httpErrorBody(DATABASE_UNAVAILABLE, 'UNAVAILABLE'));
    } else {
      logger.error({ err: error }, 'unhandled HTTP error');
      res.status(500).json(httpErrorBody(INTERNAL, 'INTERNAL_SERVER_ERROR'));
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
      wakeups.close();
      await mcp.close();
      await stopLive();
      await apollo.stop();
    },
  };
}
