import type { ApolloServerPlugin } from '@apollo/server';
import { getVariableValues, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import type { CompiledQuery } from 'graphql-jit';
import { LRUCache } from 'lru-cache';
import type { Context } from './context.js';
import { runningBudget, tooLargeAnswer } from './execution-budget.js';
import { checkCoercedOperation } from './request-limits.js';

/** Distinct queries kept, as many as the jit executor keeps compiled (jit-executor.ts). */
const KNOWN_MAX = 500;

/** What an answer's text is: one compact JSON.stringify and a newline (Apollo's stringifyResult in server.ts uses it too). */
export function answerText(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}

interface Known {
  document: DocumentNode;
  operation: OperationDefinitionNode;
  /** Set once the jit executor has compiled the operation (the second time Apollo ran it). */
  compiled: CompiledQuery | null;
}

/** A POST body the short way can serve: only query, variables and operationName, of their types (no extensions). */
interface PlainBody {
  query: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
}

function plainBody(body: unknown): PlainBody | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  for (const key in body) if (key !== 'query' && key !== 'variables' && key !== 'operationName') return null;
  const { query, variables, operationName } = body as Record<string, unknown>;
  if (typeof query !== 'string') return null;
  if (variables !== undefined && variables !== null && (typeof variables !== 'object' || Array.isArray(variables))) return null;
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') return null;
  return body as PlainBody;
}

/** Accept values for which Apollo answers application/json (the rest go to Apollo, which negotiates). */
function acceptsJson(accept: string | undefined): boolean {
  return accept === undefined || accept === '' || accept === '*/*' || accept === 'application/json';
}

const keyOf = (query: string, operationName: string | null | undefined) => `${operationName ?? ''}\u0000${query}`;

/**
 * The short way for the queries clients send again and again (the
 * dashboard's reads, an agent's lookups, the `{ __typename }` of a health
 * probe): once Apollo has answered a query with data and no error, and the
 * jit executor has compiled it, the same text is run here without Apollo's
 * request pipeline (its plugin hooks, header maps, content negotiation and
 * document hashing: with the context, three quarters of the
 * `{ __typename }` floor's profile, BENCHMARKS.md). What Apollo checks per
 * request still runs: the variables are coerced as graphql-js coerces them
 * and the request limits are checked with them (request-limits.ts), the
 * query's time budget starts as it runs, and an answer over its size budget
 * is the same TOO_LARGE answer the plugin gives.
 *
 * Only queries, and only answers with no error, go this way: whenever
 * anything would make an error (a variable of the wrong type, a limit, a
 * resolver's refusal, the database unavailable), the request is run again
 * through Apollo from the start, so every error is Apollo's own, formatted
 * and logged in one place (errors.ts). A query writes nothing, so running it
 * twice changes nothing. Mutations always go through Apollo.
 */
export class RepeatedQueries {
  private readonly known = new LRUCache<string, Known>({ max: KNOWN_MAX });

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly compiledFor: (queryHash: string, operationName: string | null | undefined) => CompiledQuery | undefined,
  ) {}

  /** The plugin that learns which queries may go the short way: those Apollo answered whole, with data and no error. */
  plugin(): ApolloServerPlugin<Context> {
    return {
      requestDidStart: async () => ({
        willSendResponse: async ({ request, response, document, operation, queryHash, contextValue }) => {
          if (operation?.operation !== 'query' || !document || typeof request.query !== 'string') return;
          if (response.body.kind !== 'single' || response.body.singleResult.errors || (response.http.status ?? 200) !== 200) return;
          if (contextValue.budget.exceeded) return;
          const key = keyOf(request.query, request.operationName);
          const known = this.known.get(key);
          if (known?.compiled) return;
          this.known.set(key, { document, operation, compiled: this.compiledFor(queryHash, request.operationName) ?? null });
        },
      }),
    };
  }

  /**
   * The answer's text for a known query sent as a plain JSON body, or null
   * when it must go through Apollo (unknown, not a plain body, another Accept,
   * or anything that would be an error).
   */
  async answer(body: unknown, accept: string | undefined, context: () => Promise<Context>): Promise<string | null> {
    if (!acceptsJson(accept)) return null;
    const request = plainBody(body);
    if (!request) return null;
    const known = this.known.get(keyOf(request.query, request.operationName));
    if (!known?.compiled) return null;
    const variables = request.variables ?? {};
    const coerced = getVariableValues(this.schema, known.operation.variableDefinitions ?? [], variables, { maxErrors: 1 });
    if (coerced.errors) return null;
    try {
      checkCoercedOperation(this.schema, known.document, known.operation, coerced.coerced);
    } catch {
      return null;
    }
    let contextValue: Context;
    let result: Awaited<ReturnType<CompiledQuery['query']>>;
    try {
      contextValue = await context();
      contextValue.budget.deadline = runningBudget().deadline;
      result = await known.compiled.query(undefined, contextValue, variables);
    } catch {
      // A context that cannot be made (the session key's lookup failed) is Apollo's to answer, in its words.
      return null;
    }
    const exceeded = contextValue.budget.exceeded;
    if (exceeded) return answerText(tooLargeAnswer(exceeded));
    if (result.errors?.length) return null;
    return answerText({ data: result.data });
  }
}
