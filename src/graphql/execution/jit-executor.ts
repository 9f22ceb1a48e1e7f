import type { GatewayExecutor, GatewayInterface } from '@apollo/server-gateway-interface';
import { GraphQLError, execute, getVariableValues, printSchema, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { LRUCache } from 'lru-cache';

/** Distinct operations kept compiled; an agent framework or the dashboard sends a few dozen. */
const COMPILED_MAX = 500;
/** An operation is compiled the second time it is seen; a one-off runs on graphql-js and costs no compilation. */
const COMPILE_AFTER = 2;

/**
 * graphql-jit's errors look like graphql-js's but are not: one without
 * extensions has none at all, where Apollo (and errors.ts) expect an object.
 * Each becomes a graphql-js GraphQLError with the same message, locations,
 * path and original error, so formatting sees what graphql-js would give;
 * and `errors` comes first, as graphql-js puts it, so an answer's text is the
 * same whichever executor ran it.
 */
export function asGraphQLJsErrors(result: ExecutionResult): ExecutionResult {
  if (!result.errors?.length) return result;
  const errors = result.errors.map((error) => {
    const copy = new GraphQLError(error.message, {
      path: error.path, originalError: error.originalError ?? undefined, extensions: error.extensions ?? undefined,
    });
    if (error.locations) Object.defineProperty(copy, 'locations', { value: error.locations, enumerable: true });
    return copy;
  });
  const { errors: _, ...rest } = result;
  return { errors, ...rest };
}

/**
 * Executes operations that clients send again and again (the dashboard's
 * reads, an agent's tool calls) with graphql-jit instead of graphql-js: each
 * is compiled once into a function that resolves exactly its fields, with no
 * generic walk of the selection per field and per row, and kept in an LRU
 * by Apollo's query hash and operation name. An operation seen once runs on
 * graphql-js, so a stream of distinct queries never costs a compilation
 * each. Parsing, validation, the cost check and every plugin still run in
 * Apollo; only execution is compiled, with the same resolvers (the
 * budgets wrap them in the schema).
 *
 * Apollo Server 5 takes a custom executor only through its gateway
 * interface, so this is a "gateway" that serves one fixed schema.
 */
export function jitGateway(schema: GraphQLSchema): {
  gateway: GatewayInterface;
  /** The operation compiled for this query hash and operation name, once it has been (repeated-queries.ts runs it). */
  compiledFor(queryHash: string, operationName: string | null | undefined): CompiledQuery | undefined;
} {
  const compiled = new LRUCache<string, CompiledQuery>({ max: COMPILED_MAX });
  const seen = new LRUCache<string, number>({ max: COMPILED_MAX * 4 });
  const executor: GatewayExecutor = async (request) => {
    const key = `${request.queryHash}:${request.operationName ?? ''}`;
    const variables = request.request.variables ?? {};
    let query = compiled.get(key);
    if (!query) {
      const times = (seen.get(key) ?? 0) + 1;
      seen.set(key, times);
      if (times < COMPILE_AFTER) {
        return execute({ schema, document: request.document, contextValue: request.context, variableValues: variables, operationName: request.operationName });
      }
      const result = compileQuery(schema, request.document, request.operationName ?? undefined);
      if (!isCompiledQuery(result)) return result;
      query = result;
      compiled.set(key, query);
      seen.delete(key);
    }
    // Variables are checked by graphql-js first, so a badly typed one is refused with graphql-js's own words
    // and its variable's node (Apollo answers those BAD_USER_INPUT); graphql-jit's say less and carry no node.
    const checked = getVariableValues(schema, request.operation.variableDefinitions ?? [], variables, { maxErrors: 50 });
    if (checked.errors) return { errors: checked.errors };
    return asGraphQLJsErrors(await query.query(undefined, request.context, variables));
  };
  const gateway: GatewayInterface = {
    load: async () => ({ executor }),
    onSchemaLoadOrUpdate: (callback) => {
      callback({ apiSchema: schema, coreSupergraphSdl: printSchema(schema) });
      return () => undefined;
    },
    stop: async () => undefined,
  };
  return { gateway, compiledFor: (queryHash, operationName) => compiled.get(`${queryHash}:${operationName ?? ''}`) };
}
