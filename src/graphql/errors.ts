import { randomUUID } from 'node:crypto';
import { unwrapResolverError } from '@apollo/server/errors';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import type { ApolloServerPlugin } from '@apollo/server';
import type { Logger } from 'pino';
import { isDatabaseUnavailable, unavailableMessage } from '../db/unavailable.js';
import { isDomainError, type DomainError } from '../domain/errors.js';

/** Codes Apollo and graphql-js give to requests that are malformed; passed through as they are. */
const REQUEST_CODES = new Set([
  'GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'BAD_USER_INPUT', 'BAD_REQUEST',
  'PERSISTED_QUERY_NOT_FOUND', 'PERSISTED_QUERY_NOT_SUPPORTED', 'OPERATION_RESOLUTION_FAILURE',
  'UNAUTHENTICATED', 'FORBIDDEN', 'TOO_LARGE',
]);

/** True when the error (or what it wraps) is a stack overflow: a document nested deeper than the parser can follow. */
function nestedTooDeep(error: unknown): boolean {
  for (let cause = error, hops = 0; cause && hops < 5; hops += 1) {
    if (cause instanceof RangeError) return true;
    cause = (cause as { originalError?: unknown }).originalError;
  }
  return false;
}

/** A document nested too deep to read (a list literal inside thousands of lists): TOO_LARGE rather than the engine's words. */
export const NESTED_TOO_DEEP =
  'The request nests lists or objects too deep to read. Send at most a few levels of nesting; pass large values as variables (JSON), not as literals in the query.';

/**
 * A refusal as data for clients: its facts (itemId, holder, limit, count…),
 * then `reason` (its catalogue key, or its code when it has none), `remedy`
 * when what to send instead names an operation, and `code`. No fact can
 * shadow those three.
 */
function refusalExtensions(error: DomainError): Record<string, unknown> {
  const facts = Object.fromEntries(Object.entries(error.facts).filter(([, value]) => value !== undefined));
  return { ...facts, reason: error.reason, ...(error.remedy ? { remedy: error.remedy } : {}), code: error.code };
}

/**
 * The one mapping from what went wrong to what a client sees. A domain
 * refusal keeps its code and message; a malformed request keeps graphql-js's
 * message; anything else is logged with an id and answered with that id
 * only — never a driver message, SQL or stack.
 */
export function createErrorFormatter(logger: Logger) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const original = unwrapResolverError(error);
    const base = { message: formatted.message, locations: formatted.locations, path: formatted.path };
    if (isDomainError(original)) {
      return { ...base, message: original.message, extensions: refusalExtensions(original) };
    }
    if (nestedTooDeep(original)) {
      return { ...base, message: NESTED_TOO_DEEP, extensions: { code: 'TOO_LARGE' } };
    }
    if (isDatabaseUnavailable(original)) {
      logger.warn({ err: original, path: formatted.path }, 'database unavailable');
      return { ...base, message: unavailableMessage(original), extensions: { code: 'UNAVAILABLE' } };
    }
    const code = formatted.extensions?.code;
    if (typeof code === 'string' && REQUEST_CODES.has(code) && original instanceof GraphQLError) {
      return { ...base, extensions: { code } };
    }
    const errorId = randomUUID();
    logger.error({ errorId, err: original, path: formatted.path }, 'unexpected error');
    return {
      ...base,
      message: `Internal server error (id ${errorId}). Nothing about its cause is shown here; if it was a mutation, nothing was recorded unless the task's version moved. Retry, and quote the id if it persists.`,
      extensions: { code: 'INTERNAL_SERVER_ERROR', errorId },
    };
  };
}

/**
 * An answer that carries UNAVAILABLE is HTTP 503, so a client or a proxy
 * that looks only at the status knows to retry (Apollo would say 200: the
 * error came from a resolver).
 */
export function unavailableStatus(): ApolloServerPlugin {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response }) {
          if (response.body.kind !== 'single') return;
          if (response.body.singleResult.errors?.some((error) => error.extensions?.code === 'UNAVAILABLE')) response.http.status = 503;
        },
      };
    },
  };
}
