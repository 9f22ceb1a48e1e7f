import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  GraphQLError, execute, getOperationAST, parse, validate,
  type DocumentNode, type ExecutionResult, type GraphQLSchema,
} from 'graphql';
import { checkOperation } from '../execution/request-limits.js';
import { CloseCode } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import type { Logger } from 'pino';
import { WebSocketServer, type WebSocket } from 'ws';
import type { OriginPolicy } from '../../http/origin-policy.js';
import type { Services } from '../../services/index.js';
import type { SubscriptionLimits } from '../../http/subscription-limits.js';
import { createContext, type Access } from '../context.js';
import { createErrorFormatter } from '../errors.js';
import { FanOut, type Subscriber } from './fan-out.js';

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

/**
 * The client an upgrade comes from, for the per-address cap (and with auth
 * off, the fan-out's budget): "::ffff:127.0.0.1" and "127.0.0.1" are one.
 * With auth off the whole loopback range (127.0.0.0/8, ::1) is one client:
 * any local process can connect from any of its addresses, so counting them
 * apart would multiply the cap by as many addresses as a caller cares to use.
 */
function clientOf(request: IncomingMessage, authOn: boolean): string {
  const raw = request.socket.remoteAddress ?? 'unknown';
  const address = raw.startsWith('::ffff:') ? raw.slice('::ffff:'.length) : raw;
  return !authOn && (address.startsWith('127.') || address === '::1') ? 'loopback' : address;
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
 * How a socket's bearer token is checked, handed in by server.ts (src/http/auth.ts
 * owns the token table): what the Authorization value allows (undefined when
 * it names no known token), and the token's principal for the per-token cap
 * (null with auth off).
 */
export interface SocketAuth {
  /** Whether TASKBASE_TOKENS is set: with it off, every loopback address is one client. */
  authOn: boolean;
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
  const accessByConnection = new WeakMap<object, { access: Access; owner: string }>();
  const byClient = new Tally();
  const byToken = new Tally();
  let total = 0;

  httpServer.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (new URL(request.url ?? '/', 'http://localhost').pathname !== '/graphql') {
      return refuseUpgrade(socket, 404, 'Not Found', 'NOT_FOUND', 'WebSocket subscriptions are served at /graphql only.');
    }
    const refusal = origins.refusal({ host: request.headers.host, origin: request.headers.origin });
    if (refusal) return refuseUpgrade(socket, 403, 'Forbidden', 'FORBIDDEN', refusal.message);
    const client = clientOf(request, auth.authOn);
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

  const fanOut = new FanOut(services, limits, masked, logger);
  const subscriberOf = new WeakMap<object, Subscriber>();

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
        // With auth off, a socket's events are budgeted on its client's share.
        accessByConnection.set(ctx, { access, owner: token ?? `client ${clientOf(ctx.extra.request, auth.authOn)}` });
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
        if (!operation) {
          return [new GraphQLError('The document holds several operations: name the one to run in operationName.', { extensions: { code: 'BAD_REQUEST' } })];
        }
        try {
          checkOperation(schema, document, operation, payload.variables ?? {});
        } catch (error) {
          if (error instanceof GraphQLError) return [error];
          throw error;
        }
        if (fanOut.size >= limits.maxSubscriptions) {
          return [new GraphQLError(
            `The server already runs ${limits.maxSubscriptions} subscriptions, the most it may (TASKBASE_WS_MAX_SUBSCRIPTIONS). ` +
              'Retry later, or watch a wider scope (domainChanged with a parent domain, sessionChanged without id) with one subscription.',
            { extensions: { code: 'TOO_LARGE', limit: limits.maxSubscriptions } },
          )];
        }
        // Counted from here: a burst of subscribe messages is checked before the first of them runs.
        fanOut.reserve();
        return { schema, document, operationName: payload.operationName, variableValues: payload.variables };
      },
      execute,
      subscribe: (args) => fanOut.subscribe(args, subscriberOf.get(args.contextValue as object)!),
      context: (ctx, id, payload) => {
        const { access, owner } = accessByConnection.get(ctx) ?? { access: 'read' as const, owner: 'unknown' };
        const contextValue = createContext(services, undefined, access);
        // The same document and variables, for the same token and access, is one execution per change.
        const key = JSON.stringify([owner, access, payload.query, payload.operationName ?? null, payload.variables ?? null]);
        subscriberOf.set(contextValue, { socket: ctx.extra.socket, id, owner, key });
        return contextValue;
      },
      onNext: (_ctx, _id, _payload, _args, result) => masked(result as ExecutionResult),
    },
    wss,
  );
  return async () => {
    await disposable.dispose();
    await fanOut.close();
  };
}
