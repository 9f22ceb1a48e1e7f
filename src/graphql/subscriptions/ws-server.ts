import type { Server } from 'node:http';
import { GraphQLError, execute, getOperationAST, parse, subscribe, validate, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { checkOperation } from '../request-limits.js';
import { CloseCode } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import type { Logger } from 'pino';
import { WebSocketServer } from 'ws';
import { accessOf } from '../../auth.js';
import type { Services } from '../../services/index.js';
import { createContext, type Access } from '../context.js';
import { createErrorFormatter } from '../errors.js';

/** A close reason is at most 123 bytes; these say what to send instead. */
const NO_TOKEN = 'Authentication is on: send connectionParams {authorization: "Bearer <token>"}.';
const BAD_TOKEN = 'The bearer token is not one this server knows.';

/**
 * GraphQL subscriptions over WebSocket (the graphql-ws protocol) on the
 * HTTP server's own port and path. The same bearer tokens as POST /graphql:
 * in connectionParams.authorization (browsers cannot set headers on a
 * WebSocket) or the upgrade request's Authorization header; a connection
 * without a known one is closed with 4401. Only subscriptions run here:
 * queries and mutations go to POST /graphql, where the request limits and
 * the read-only check apply.
 */
export function attachSubscriptions(httpServer: Server, schema: GraphQLSchema, services: Services, tokens: Map<string, Access>, logger: Logger): () => Promise<void> {
  const wss = new WebSocketServer({ server: httpServer, path: '/graphql' });
  const format = createErrorFormatter(logger);
  const accessByConnection = new WeakMap<object, Access>();
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
        const access = accessOf(tokens, authorization);
        if (!access) {
          ctx.extra.socket.close(CloseCode.Unauthorized, authorization ? BAD_TOKEN : NO_TOKEN);
          return false;
        }
        accessByConnection.set(ctx, access);
        return true;
      },
      // Parsed, validated and run with this module's graphql (the copy the schema was built with), not graphql-ws's own import.
      onSubscribe: (_ctx, _id, payload) => {
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
      subscribe,
      context: (ctx) => createContext(services, undefined, accessByConnection.get(ctx) ?? 'read'),
      onNext: (_ctx, _id, _payload, _args, result) => masked(result as ExecutionResult),
    },
    wss,
  );
  return async () => {
    await disposable.dispose();
  };
}
