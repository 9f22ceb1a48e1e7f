import type { IncomingMessage, ServerResponse } from 'node:http';
import { HeaderMap, type ApolloServer } from '@apollo/server';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { AUTH_CHALLENGE, authorize } from '../http/auth.js';
import { httpErrorBody } from '../http/http-edge.js';
import { DATABASE_UNAVAILABLE, isDatabaseUnavailable } from '../db/unavailable.js';
import { sendAnswer } from '../http/compression.js';
import type { Access, Context } from '../graphql/context.js';
import type { OriginPolicy } from '../http/origin-policy.js';
import type { RepeatedQueries } from '../graphql/execution/repeated-queries.js';

export interface GraphQLHttpOptions {
  apollo: ApolloServer<Context>;
  /** The short way for operations Apollo has answered before (repeated-queries.ts); the lean path tries it first. */
  repeated: RepeatedQueries;
  tokens: Map<string, Access>;
  origins: OriginPolicy;
  bodyLimit: number;
  logger: Logger;
  /** The request's context, from its headers and what its token allows. */
  context(headers: IncomingMessage['headers'], access: Access, principal: string | null): Promise<Context>;
}

const JSON_HEADERS = { 'Content-Type': 'application/json; charset=utf-8' };
/** The header Apollo gives a JSON answer, as it spells it: a repeated query's answer carries the same. */
const APOLLO_JSON = { 'content-type': 'application/json; charset=utf-8' };

/** The answers given before GraphQL runs, in the words the express chain uses (server.ts's onError). */
export const BAD_JSON = 'The request body is not valid JSON. Send {"query": "...", "variables": {...}} as application/json.';
export const INTERNAL = 'Internal server error.';

/**
 * Runs one HTTP request through Apollo (its CSRF prevention, plugins and
 * error formatting included) and sends the answer, compressed when it is
 * big and the client accepts it. `body` is the parsed JSON body (undefined
 * for none), as Apollo's integrations pass it.
 */
export async function answerGraphQL(
  options: GraphQLHttpOptions, req: IncomingMessage, res: ServerResponse, body: unknown, access: Access, principal: string | null,
): Promise<void> {
  const headers = new HeaderMap();
  for (const [key, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
  }
  const url = req.url ?? '';
  const query = url.indexOf('?');
  const answer = await options.apollo.executeHTTPGraphQLRequest({
    httpGraphQLRequest: { method: (req.method ?? 'GET').toUpperCase(), headers, search: query === -1 ? '' : url.slice(query), body },
    context: () => options.context(req.headers, access, principal),
  });
  const out: Record<string, string> = {};
  for (const [key, value] of answer.headers) out[key] = value;
  const status = answer.status ?? 200;
  if (answer.body.kind === 'complete') {
    sendAnswer(req, res, status, out, answer.body.string);
    return;
  }
  // Incremental delivery (@defer) streams its parts as they come: never held back to be compressed.
  res.writeHead(status, out);
  for await (const chunk of answer.body.asyncIterator) res.write(chunk);
  res.end();
}

/** The express route for what the lean path leaves to express (GET queries, other content types, chunked or oversized bodies). */
export function graphqlRoute(options: GraphQLHttpOptions): RequestHandler {
  return async (req, res) => {
    await answerGraphQL(options, req, res, req.body, res.locals.access as Access, (res.locals.principal ?? null) as string | null);
  };
}

/** `application/json`, with no charset or UTF-8's: what body-parser would read as this route reads it. */
function plainJson(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const [type, ...params] = contentType.toLowerCase().split(';').map((part) => part.trim());
  if (type !== 'application/json') return false;
  return params.every((param) => !param.startsWith('charset=') || param === 'charset=utf-8' || param === 'charset="utf-8"');
}

function sendJson(res: ServerResponse, status: number, body: object, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...JSON_HEADERS, ...headers, 'Content-Length': Buffer.byteLength(text) }).end(text);
}

/**
 * The lean path for the API's common request, POST /graphql with a JSON body
 * of a stated length within the limit: straight from node:http to Apollo, with
 * no router walk, no middleware chain and no content-type negotiation beyond
 * this one check. It keeps every answer the express chain gives, in the same
 * order: the Host and Origin guard (403), the bearer token (401), then the
 * body, read as body-parser reads JSON (strict: an object or an array; empty
 * is {}). Returns false for any other request, which express then serves as
 * before: GET (the landing page, queries), other content types, a chunked
 * or compressed body, or one over the limit (its 413 is express's).
 * Measured on `{ __typename }`: see BENCHMARKS.md (the floor against a bare
 * node:http server).
 */
export function leanGraphQL(options: GraphQLHttpOptions): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    if (req.method !== 'POST') return false;
    const url = req.url ?? '';
    if (url !== '/graphql' && !url.startsWith('/graphql?')) return false;
    const length = req.headers['content-length'];
    const encoding = req.headers['content-encoding'];
    if (length === undefined || !/^\d+$/.test(length) || Number(length) > options.bodyLimit) return false;
    if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return false;
    if (!plainJson(req.headers['content-type'])) return false;

    res.setHeader('X-Content-Type-Options', 'nosniff');
    const origin = req.headers.origin;
    const refused = options.origins.refusal({ host: req.headers.host, origin: Array.isArray(origin) ? origin[0] : origin });
    if (refused) {
      // As the guard does: the body is not read, and closing after the answer keeps an unread upload from holding the connection.
      sendJson(res, 403, httpErrorBody(refused.message, 'FORBIDDEN'), { Connection: 'close' });
      return true;
    }
    const caller = authorize(options.tokens, req.headers.authorization);
    if ('refusal' in caller) {
      sendJson(res, 401, httpErrorBody(caller.refusal, 'UNAUTHENTICATED'), { 'WWW-Authenticate': AUTH_CHALLENGE });
      // The body is left unread, as body-parser never reads it behind a 401; Node discards it before the next request.
      return true;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', () => undefined);
    req.on('end', () => {
      let body: unknown;
      try {
        const text = chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8');
        body = parseStrictJson(text);
      } catch {
        sendJson(res, 400, httpErrorBody(BAD_JSON, 'BAD_REQUEST'));
        return;
      }
      answerLean(options, req, res, body, caller.access, caller.principal).catch((error: unknown) => {
        // Outside a resolver (reading the committed version first, say), an unreachable database is still "retry".
        if (isDatabaseUnavailable(error)) {
          options.logger.warn({ err: error }, 'database unavailable');
          if (!res.headersSent) sendJson(res, 503, httpErrorBody(DATABASE_UNAVAILABLE, 'UNAVAILABLE'));
          else res.destroy();
          return;
        }
        options.logger.error({ err: error }, 'unhandled HTTP error');
        if (!res.headersSent) sendJson(res, 500, httpErrorBody(INTERNAL, 'INTERNAL_SERVER_ERROR'));
        else res.destroy();
      });
    });
    return true;
  };
}

/** A repeated operation the short way, anything else through Apollo. */
async function answerLean(
  options: GraphQLHttpOptions, req: IncomingMessage, res: ServerResponse, body: unknown, access: Access, principal: string | null,
): Promise<void> {
  const answer = await options.repeated.answer(body, req.headers.accept, () => options.context(req.headers, access, principal));
  if (answer === null) return answerGraphQL(options, req, res, body, access, principal);
  sendAnswer(req, res, answer.status, APOLLO_JSON, answer.text);
}

/** body-parser's JSON in its strict mode: an empty body is {}, and only an object or an array is read (anything else throws). */
function parseStrictJson(text: string): unknown {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (body.length === 0) return {};
  const first = /^[\x20\x09\x0a\x0d]*(.)/.exec(body)?.[1];
  if (first !== '{' && first !== '[') throw new SyntaxError('not an object or an array');
  return JSON.parse(body);
}
