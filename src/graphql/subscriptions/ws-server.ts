import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  GraphQLError, createSourceEventStream, execute, getOperationAST, parse, validate,
  type DocumentNode, type ExecutionArgs, type ExecutionResult, type GraphQLSchema,
} from 'graphql';
import { checkOperation } from '../request-limits.js';
import { CloseCode } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import type { Logger } from 'pino';
import { WebSocketServer, type WebSocket } from 'ws';
import type { OriginPolicy } from '../../origin-policy.js';
import type { Services } from '../../services/index.js';
import type { SubscriptionLimits } from '../../subscription-limits.js';
import { createContext, type Access, type Context } from '../context.js';
import { createErrorFormatter } from '../errors.js';
import { runningBudget } from '../execution-budget.js';
import { createLoaders } from '../loaders.js';

/** A close reason is at most 123 bytes; these say what to send instead. */
const NO_TOKEN = 'Authentication is on: send connectionParams {authorization: "Bearer <token>"}.';
const BAD_TOKEN = 'The bearer token is not one this server knows.';

/**
 * The largest message a client may send: a subscription document with its
 * variables is a few KB, so a few hundred KB is ample; a bigger message
 * closes the socket with 1009 before it is held in memory.
 */
const MAX_MESSAGE_BYTES = 256 * 1024;

/** graphql-ws' close codes are 44xx; this one says a cap is reached. */
const TOO_MANY_SOCKETS = 4429;

/** "::ffff:127.0.0.1" and "127.0.0.1" are one client. */
function clientOf(request: IncomingMessage): string {
  const address = request.socket.remoteAddress ?? 'unknown';
  return address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
}

/** Open sockets per key (a client address, a token). */
class Tally {
  private readonly open = new Map<string, number>();
  count(key: string): number {
    return this.open.get(key) ?? 0;
  }
  add(key: string): void {
    this.open.set(key, this.count(key) + 1);
  }
  remove(key: string): void {
    const left = this.count(key) - 1;
    if (left > 0) this.open.set(key, left);
    else this.open.delete(key);
  }
}

/** An HTTP answer to an upgrade that is not let through: a JSON body in the GraphQL error shape, then the socket is closed. */
function refuseUpgrade(socket: Duplex, status: number, statusText: string, code: string, message: string): void {
  const body = JSON.stringify({ errors: [{ message, extensions: { code } }] });
  socket.on('error', () => undefined);
  socket.end(
    `HTTP/1.1 ${status} ${statusText}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/**
 * Runs a subscription with its own execution per event: each event is an
 * answer of its own, with a fresh size and time budget and fresh loaders
 * (what the previous event read may be stale). An event over its budget is
 * sent as one TOO_LARGE error, and the subscription goes on.
 */
function subscribeEachEventBudgeted(services: Services) {
  return async (args: ExecutionArgs): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> => {
    const stream = await createSourceEventStream(args);
    if (!(Symbol.asyncIterator in stream)) return stream;
    const events = stream[Symbol.asyncIterator]();
    const base = args.contextValue as Context;
    const run = async (payload: unknown): Promise<ExecutionResult> => {
      const budget = runningBudget();
      const contextValue: Context = { ...base, loaders: createLoaders(services, budget), budget };
      const result = await execute({ ...args, rootValue: payload, contextValue });
      const { exceeded } = contextValue.budget;
      return exceeded ? { data: null, errors: [exceeded] } : result;
    };
    // Not an async generator: its return() would wait for the next event before the subscription let go of its topic.
    const iterator: AsyncIterableIterator<ExecutionResult> = {
      [Symbol.asyncIterator]: () => iterator,
      next: async () => {
        const event = await events.next();
        return event.done ? { done: true, value: undefined } : { done: false, value: await run(event.value) };
      },
      return: async () => {
        await events.return?.();
        return { done: true, value: undefined };
      },
      throw: async (error: unknown) => {
        await events.return?.();
        throw error;
      },
    };
    return iterator;
  };
}

/**
 * How a socket's bearer token is checked, handed in by server.ts (src/auth.ts
 * owns the token table): what the Authorization value allows (undefined when
 * it names no known token), and the token's principal for the per-token cap
 * (null with auth off).
 */
export interface SocketAuth {
  accessOf(authorization: string | undefined): Access | undefined;
  principalOf(authorization: string | undefined): string | null;
}

/**
 * GraphQL subscriptions over WebSocket (the graphql-ws protocol) on the
 * HTTP server's own port and path. The upgrade is held to the Host and
 * Origin policy every HTTP path has (a web page on another origin cannot
 * listen in) and to the socket caps; then the same bearer tokens as POST
 * /graphql: in connectionParams.authorization (browsers cannot set headers
 * on a WebSocket) or the upgrade request's Authorization header; a
 * connection without a known one is closed with 4401. Only subscriptions
 * run here: queries and mutations go to POST /graphql, where the request
 * limits and the read-only check apply.
 */
export function attachSubscriptions(
  options: { httpServer: Server; schema: GraphQLSchema; services: Services; auth: SocketAuth; origins: OriginPolicy; limits: SubscriptionLimits; logger: Logger },
): () => Promise<void> {
  const { httpServer, schema, services, auth, origins, limits, logger } = options;
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  const format = createErrorFormatter(logger);
  const accessByConnection = new WeakMap<object, Access>();
  const byClient = new Tally();
  const byToken = new Tally();
  let total = 0;

  httpServer.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (new URL(request.url ?? '/', 'http://localhost').pathname !== '/graphql') {
      return refuseUpgrade(socket, 404, 'Not Found', 'NOT_FOUND', 'WebSocket subscriptions are served at /graphql only.');
    }
    const refusal = origins.refusal({ host: request.headers.host, origin: request.headers.origin });
    if (refusal) return refuseUpgrade(socket, 403, 'Forbidden', 'FORBIDDEN', refusal.message);
    const client = clientOf(request);
    if (byClient.count(client) >= limits.maxSocketsPerClient) {
      return refuseUpgrade(socket, 429, 'Too Many Requests', 'TOO_LARGE',
        `This client address already holds ${limits.maxSocketsPerClient} open subscription sockets, the most it may (TASKBASE_WS_MAX_SOCKETS_PER_CLIENT). ` +
          'Run several subscriptions on one socket, or close one first.');
    }
    if (total >= limits.maxSockets) {
      return refuseUpgrade(socket, 503, 'Service Unavailable', 'TOO_LARGE',
        `The server already holds ${limits.maxSockets} open subscription sockets, the most it may (TASKBASE_WS_MAX_SOCKETS). Retry later.`);
    }
    wss.handleUpgrade(request, socket, head, (ws: WebSocket) => {
      // ws closes a socket that sent too big a message with 1009 itself; that is the client's doing, not
      // an internal error for graphql-ws to log and answer with 1011.
      const emit = ws.emit.bind(ws);
      ws.emit = (event: string | symbol, ...args: unknown[]) => {
        if (event === 'error' && (args[0] as { code?: string } | undefined)?.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') {
          logger.info({ client }, `a WebSocket message over ${MAX_MESSAGE_BYTES} bytes: socket closed with 1009`);
          return true;
        }
        return emit(event, ...args);
      };
      byClient.add(client);
      total += 1;
      ws.once('close', () => {
        byClient.remove(client);
        total -= 1;
      });
      wss.emit('connection', ws, request);
    });
  });

  // The one error mapping POST /graphql uses: a refusal keeps its code, anything unexpected is an id only.
  const masked = (result: ExecutionResult): ExecutionResult => {
    if (!result.errors) return result;
    const errors = result.errors.map((error) => {
      const shown = format(error.toJSON(), error);
      return new GraphQLError(shown.message, { path: shown.path, extensions: shown.extensions });
    });
    return { ...result, errors };
  };

  const disposable = useServer(
    {
      schema,
      onConnect: (ctx) => {
        const param = ctx.connectionParams?.authorization ?? ctx.connectionParams?.Authorization;
        const authorization = typeof param === 'string' ? param : ctx.extra.request.headers.authorization;
        const access = auth.accessOf(authorization);
        if (!access) {
          ctx.extra.socket.close(CloseCode.Unauthorized, authorization ? BAD_TOKEN : NO_TOKEN);
          return false;
        }
        // With auth off there is no token to count: the per-address cap holds.
        const token = auth.principalOf(authorization);
        if (token !== null) {
          if (byToken.count(token) >= limits.maxSocketsPerToken) {
            ctx.extra.socket.close(TOO_MANY_SOCKETS, `This token holds ${limits.maxSocketsPerToken} sockets, the most it may (TASKBASE_WS_MAX_SOCKETS_PER_TOKEN). Reuse one.`);
            return false;
          }
          byToken.add(token);
          ctx.extra.socket.once('close', () => byToken.remove(token));
        }
        accessByConnection.set(ctx, access);
        return true;
      },
      // Parsed, validated and run with this module's graphql (the copy the schema was built with), not graphql-ws's own import.
      onSubscribe: (ctx, _id, payload) => {
        // The new subscription is already listed (pending) when this runs.
        if (Object.keys(ctx.subscriptions).length > limits.maxSubscriptionsPerSocket) {
          return [new GraphQLError(
            `This socket already runs ${limits.maxSubscriptionsPerSocket} subscriptions, the most one may (TASKBASE_WS_MAX_SUBSCRIPTIONS_PER_SOCKET). ` +
              'Complete one first, or watch a wider scope (domainChanged with a parent domain, sessionChanged without id) with one subscription.',
            { extensions: { code: 'TOO_LARGE', limit: limits.maxSubscriptionsPerSocket } },
          )];
        }
        let document: DocumentNode;
        try {
          document = parse(payload.query);
        } catch (error) {
          return [error as GraphQLError];
        }
        const errors = validate(schema, document);
        if (errors.length) return [...errors];
        const operation = getOperationAST(document, payload.operationName);
        if (operation && operation.operation !== 'subscription') {
          return [new GraphQLError(`Only subscriptions run over WebSocket. Send ${operation.operation} operations to POST /graphql.`, { extensions: { code: 'BAD_REQUEST' } })];
        }
        // The same limits as POST /graphql (page arguments, depth, aliases, cost): a subscription's payload is read on every change.
        if (operation) {
          try {
            checkOperation(schema, document, operation, payload.variables ?? {});
          } catch (error) {
            if (error instanceof GraphQLError) return [error];
            throw error;
          }
        }
        return { schema, document, operationName: payload.operationName, variableValues: payload.variables };
      },
      execute,
      subscribe: subscribeEachEventBudgeted(services),
      context: (ctx) => createContext(services, undefined, accessByConnection.get(ctx) ?? 'read'),
      onNext: (_ctx, _id, _payload, _args, result) => masked(result as ExecutionResult),
    },
    wss,
  );
  return async () => {
    await disposable.dispose();
  };
}
