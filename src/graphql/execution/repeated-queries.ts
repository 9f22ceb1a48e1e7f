import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, getVariableValues, type DocumentNode, type GraphQLFormattedError, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import type { CompiledQuery } from 'graphql-jit';
import { LRUCache } from 'lru-cache';
import type { Context } from '../context.js';
import { CommittedCache } from '../../services/kernel/committed-cache.js';
import { startClock, tooLargeAnswer } from './execution-budget.js';
import { asGraphQLJsErrors } from './jit-executor.js';
import { checkCoercedOperation } from './request-limits.js';

/** Distinct queries kept, as many as the jit executor keeps compiled (jit-executor.ts). */
const KNOWN_MAX = 500;

/** Answers kept at one committed version: this many, and their texts' bytes together at most ANSWERS_KEPT_BYTES. */
const ANSWERS_KEPT = 512;
const ANSWERS_KEPT_BYTES = 16 * 1024 * 1024;

/** What an answer's text is: one compact JSON.stringify and a newline (Apollo's stringifyResult in server.ts uses it too). */
export function answerText(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}

interface Known {
  document: DocumentNode;
  operation: OperationDefinitionNode;
  /** Whether its answers may be kept until the next commit (keepsAnswers). */
  keeps: boolean;
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

/** Root fields whose answers are never kept: the ready queue leaves claimed items out, so a claim's expiry changes it. */
const NEVER_KEPT = new Set(['ready']);

/**
 * Whether a query's answers may be kept until the next commit: it reads rows
 * (asks for more than __typename and introspection, whose answers cost less
 * than reading the committed version) and asks for nothing never kept.
 */
function keepsAnswers(operation: OperationDefinitionNode): boolean {
  const roots = operation.selectionSet.selections;
  if (roots.some((selection) => selection.kind === 'Field' && NEVER_KEPT.has(selection.name.value))) return false;
  return roots.some((selection) => selection.kind !== 'Field' || !selection.name.value.startsWith('__'));
}

const keyOf = (query: string, operationName: string | null | undefined) => `${operationName ?? ''}\u0000${query}`;

/** Apollo's formatError as server.ts gives it (errors.ts): the one place an error's words and code are chosen. */
type FormatError = (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError;

/** An answer given the short way: its status and text. */
export interface ShortAnswer {
  status: number;
  text: string;
}

/**
 * A mutation's errors as Apollo formats them (@apollo/server's
 * normalizeAndFormatErrors, with includeStacktraceInErrorResponses off): each
 * error's JSON with a code (INTERNAL_SERVER_ERROR when it has none) through
 * formatError, an `extensions.http.status` taken as the answer's status and
 * dropped, and a formatter that throws answering Apollo's own words. The
 * status is 503 when one says UNAVAILABLE (errors.ts's unavailableStatus).
 */
function formattedErrors(errors: readonly GraphQLError[], formatError: FormatError): { status: number; errors: GraphQLFormattedError[] } {
  let status = 200;
  const formatted = errors.map((error) => {
    const extensions: Record<string, unknown> = { ...error.extensions, code: error.extensions.code ?? 'INTERNAL_SERVER_ERROR' };
    const http = extensions.http as { status?: unknown } | undefined;
    if (http && typeof http === 'object') {
      if (typeof http.status === 'number') status = http.status;
      delete extensions.http;
    }
    try {
      return formatError({ ...error.toJSON(), extensions }, error);
    } catch {
      return { message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } };
    }
  });
  if (formatted.some((error) => error.extensions?.code === 'UNAVAILABLE')) status = 503;
  return { status, errors: formatted };
}

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
 * A query's answer with an error never goes this way: whenever anything
 * would make an error (a resolver's refusal, the database unavailable), the
 * request is run again through Apollo from the start, so the error is
 * Apollo's own; a query writes nothing, so running it twice changes nothing.
 * A mutation (measured: Apollo's pipeline around it was about a tenth of
 * updateItem's CPU) is run once whatever happens, since it may have written:
 * its errors are formatted here as Apollo does, through the same formatError
 * (errors.ts), so they read and are logged the same. Whatever is refused
 * before anything runs (a variable of the wrong type, a limit, a read-only
 * token's mutation) still goes to Apollo, which answers it.
 *
 * A query's answer is kept until anything commits (CommittedCache: the
 * committed version is read first, one statement that reads no table), for
 * the same text, operation, variables, token and access: asked again
 * meanwhile, it is sent as it was, with nothing run. Only answers with data
 * and no error, within their budgets, are kept, and not:
 * - an operation that reads no row (`{ __typename }`, introspection): the
 *   version's statement would cost more than running it; nor the ready
 *   queue (`ready`), which a claim's expiry changes;
 * - a request with a session (x-session-id or x-session-key): reading a
 *   domain records it as one the session named, which must happen each time;
 * - an answer that shows a live claim or the ready queue
 *   (Context.showsLiveClaims): a claim's expiry changes it with no commit.
 */
export class RepeatedQueries {
  private readonly known = new LRUCache<string, Known>({ max: KNOWN_MAX });
  private readonly answers: CommittedCache<ShortAnswer | null>;
  /** The answers that may be kept: with data and no error, within budget, showing no live claim. */
  private readonly keepable = new WeakSet<ShortAnswer>();

  /** `keep`: keep answers until anything commits (TASKBASE_KEEP_READS). */
  constructor(
    private readonly schema: GraphQLSchema,
    private readonly compiledFor: (queryHash: string, operationName: string | null | undefined) => CompiledQuery | undefined,
    private readonly formatError: FormatError,
    private readonly keep = true,
  ) {
    // With `keep` off, answer() never asks it (no key is even made).
    this.answers = new CommittedCache({ keys: ANSWERS_KEPT, weigh: (answer) => 2 * (answer?.text.length ?? 0), weight: ANSWERS_KEPT_BYTES });
  }

  /** The plugin that learns which operations may go the short way: those Apollo answered whole, with data and no error. */
  plugin(): ApolloServerPlugin<Context> {
    return {
      requestDidStart: async () => ({
        willSendResponse: async ({ request, response, document, operation, queryHash, contextValue }) => {
          if ((operation?.operation !== 'query' && operation?.operation !== 'mutation') || !document || typeof request.query !== 'string') return;
          if (response.body.kind !== 'single' || response.body.singleResult.errors || (response.http.status ?? 200) !== 200) return;
          if (contextValue.budget.exceeded) return;
          const key = keyOf(request.query, request.operationName);
          const known = this.known.get(key);
          if (known?.compiled) return;
          this.known.set(key, { document, operation, keeps: keepsAnswers(operation), compiled: this.compiledFor(queryHash, request.operationName) ?? null });
        },
      }),
    };
  }

  /**
   * The answer's text for a known query sent as a plain JSON body, or null
   * when it must go through Apollo (unknown, not a plain body, another Accept,
   * or anything that would be an error).
   */
  async answer(body: unknown, accept: string | undefined, context: () => Promise<Context>): Promise<ShortAnswer | null> {
    if (!acceptsJson(accept)) return null;
    const request = plainBody(body);
    if (!request) return null;
    const queryKey = keyOf(request.query, request.operationName);
    const known = this.known.get(queryKey);
    if (!known?.compiled) return null;
    const variables = request.variables ?? {};
    const coerced = getVariableValues(this.schema, known.operation.variableDefinitions ?? [], variables, { maxErrors: 1 });
    if (coerced.errors) return null;
    try {
      checkCoercedOperation(this.schema, known.document, known.operation, coerced.coerced);
    } catch {
      return null;
    }
    const mutation = known.operation.operation === 'mutation';
    let contextValue: Context;
    try {
      contextValue = await context();
    } catch {
      // A context that cannot be made (the session key's lookup failed) is Apollo's to answer, in its words.
      return null;
    }
    // A read-only token's mutation is refused before any of it runs (read-only-access.ts): Apollo's to answer.
    if (mutation && contextValue.access !== 'write') return null;
    if (mutation) return this.mutationAnswer(known.compiled, contextValue, variables);
    const compiled = known.compiled;
    const run = () => this.queryAnswer(compiled, contextValue, variables);
    if (!this.keep || contextValue.caller.sessionId !== null || !known.keeps) return run();
    // The query's own key (operation and text, as known by it) and, as coerced, the variables: only those the
    // operation declares, so an undeclared one cannot make keys of its own.
    const key = `${JSON.stringify([contextValue.access, contextValue.caller.principal, coerced.coerced])}\u0000${queryKey}`;
    try {
      return await this.answers.get(contextValue.services.db.reader, key, (version) => {
        // The reads kept by the services (memory-reader.ts) take this version rather than read it again.
        contextValue.committedVersion = version;
        return run();
      }, { keepable: (answer) => answer !== null && this.keepable.has(answer) });
    } catch {
      // The committed version could not be read (the database away): Apollo's to answer, as UNAVAILABLE.
      return null;
    }
  }

  /** A known query run the short way: its answer, or null for Apollo to answer (an error). */
  private async queryAnswer(compiled: CompiledQuery, contextValue: Context, variables: Record<string, unknown>): Promise<ShortAnswer | null> {
    startClock(contextValue.budget);
    let result: Awaited<ReturnType<CompiledQuery['query']>>;
    try {
      result = await compiled.query(undefined, contextValue, variables);
    } catch {
      return null;
    }
    const exceeded = contextValue.budget.exceeded;
    if (exceeded) return { status: 200, text: answerText(tooLargeAnswer(exceeded)) };
    if (result.errors?.length) return null;
    const answer = { status: 200, text: answerText({ data: result.data }) };
    if (!contextValue.showsLiveClaims) this.keepable.add(answer);
    return answer;
  }

  /**
   * A known mutation, run once: it may have written, so it is never run
   * again through Apollo. Its errors (a refusal, a conflict, the database
   * away, an answer past its budget, at the path of the field that failed)
   * are formatted here as Apollo formats them, by the same formatError.
   */
  private async mutationAnswer(compiled: CompiledQuery, contextValue: Context, variables: Record<string, unknown>): Promise<ShortAnswer> {
    const result = asGraphQLJsErrors(await compiled.query(undefined, contextValue, variables));
    if (!result.errors?.length) return { status: 200, text: answerText({ data: result.data }) };
    const { status, errors } = formattedErrors(result.errors as GraphQLError[], this.formatError);
    return { status, text: answerText({ ...result, errors }) };
  }
}
