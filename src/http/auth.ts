import { createHash } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Access } from '../services/kernel/unit-of-work.js';
import { httpErrorBody, isMcpPath, rpcErrorBody } from './http-edge.js';

/**
 * Bearer tokens from TASKBASE_TOKENS: "secret" may read and write,
 * "secret:read" (sent as "Bearer secret") may only read. Tokens are kept as
 * SHA-256 digests, so looking one up takes the same time however much of it
 * a guess gets right.
 */
export function tokenTable(entries: readonly string[]): Map<string, Access> {
  const table = new Map<string, Access>();
  for (const entry of entries) {
    const readOnly = entry.endsWith(':read');
    const token = readOnly ? entry.slice(0, -':read'.length) : entry;
    // A mistake here must not quietly leave the server open, or quietly lock someone out: refuse to start.
    if (!token || /\s/.test(token)) {
      throw new Error(`TASKBASE_TOKENS has an entry "${entry}" that is not a token: entries are comma-separated, without spaces, optionally ending in :read.`);
    }
    const access: Access = readOnly ? 'read' : 'write';
    const earlier = table.get(digest(token));
    if (earlier && earlier !== access) {
      throw new Error('TASKBASE_TOKENS names one token both with and without :read; give it once, with the access it should have.');
    }
    table.set(digest(token), access);
  }
  return table;
}

/** What an Authorization value ("Bearer <token>") allows; undefined when it names no known token. Write for all when auth is off. */
export function accessOf(table: Map<string, Access>, authorization: string | undefined): Access | undefined {
  if (table.size === 0) return 'write';
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  return match ? table.get(digest(match[1])) : undefined;
}

/** A key for the bearer token an Authorization value names, when the server knows it (the per-token caps); null otherwise and with auth off. */
export function knownTokenKey(table: Map<string, Access>, authorization: string | undefined): string | null {
  if (table.size === 0) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  const key = match ? digest(match[1]) : null;
  return key && table.has(key) ? key : null;
}

function digest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * Who a bearer token is, as the database records it (the owner of the
 * sessions it starts, the scope of its idempotency keys): a digest under its
 * own prefix, so what is stored is neither the token nor its lookup digest.
 */
export function principalOf(token: string): string {
  return createHash('sha256').update('taskbase principal\0').update(token).digest('hex');
}

/** How to send a token, in the words every refusal below uses. */
const HOW_TO_SEND_A_TOKEN =
  'Send the header Authorization: Bearer <token> with a token from TASKBASE_TOKENS (for MCP clients: --header "Authorization: Bearer <token>", or "headers" in an mcpServers entry).';

/**
 * With no tokens configured, auth is off and every caller may write. With
 * tokens, a request without a known bearer token is answered 401
 * UNAUTHENTICATED before GraphQL or MCP runs; a known one sets
 * res.locals.access and res.locals.principal. The challenge names the
 * realm and nothing else: there is no authorization server to discover
 * (see notOAuth).
 */
export function bearerAuth(table: Map<string, Access>): RequestHandler {
  return (req, res, next) => {
    const caller = authorize(table, req.headers.authorization);
    if ('refusal' in caller) {
      res.setHeader('WWW-Authenticate', AUTH_CHALLENGE);
      res.status(401).json(isMcpPath(req.path) ? rpcErrorBody(caller.refusal, 'UNAUTHENTICATED') : httpErrorBody(caller.refusal, 'UNAUTHENTICATED'));
      return;
    }
    res.locals.access = caller.access;
    if (caller.principal !== null) res.locals.principal = caller.principal;
    next();
  };
}

/** The WWW-Authenticate header of every 401. */
export const AUTH_CHALLENGE = 'Bearer realm="taskbase"';

/**
 * The rule bearerAuth applies, for the routes that answer without express
 * (src/server/graphql-http.ts): who an Authorization value makes the caller, or the
 * 401's message.
 */
export function authorize(
  table: Map<string, Access>, authorization: string | undefined,
): { access: Access; principal: string | null } | { refusal: string } {
  if (table.size === 0) return { access: 'write', principal: null };
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  const access = accessOf(table, authorization);
  if (!access) {
    return {
      refusal: match
        ? `The bearer token is not one this server knows. ${HOW_TO_SEND_A_TOKEN}`
        : `Authentication is on. ${HOW_TO_SEND_A_TOKEN}`,
    };
  }
  return { access, principal: principalOf(match![1]) };
}

/**
 * Every path the server does not serve, the ones MCP clients probe when they
 * meet a 401 included (OAuth discovery under /.well-known/, dynamic client
 * registration at /register, /authorize, /token): taskbase has no
 * authorization server, so each answers 404 JSON that says to send the bearer
 * token instead, and a client falls back to the header it was given rather
 * than to a login flow.
 */
export function notFound(): RequestHandler {
  return (req, res) => {
    res.status(404).json(httpErrorBody(
      `Nothing is served at ${req.method} ${req.path}: taskbase answers /graphql, /mcp, /healthz and its dashboard at /. ` +
        `It uses bearer tokens, not OAuth (there is no discovery, registration or authorization endpoint). ${HOW_TO_SEND_A_TOKEN}`,
      'NOT_FOUND',
    ));
  };
}
