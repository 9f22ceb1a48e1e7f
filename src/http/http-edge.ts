import type { RequestHandler } from 'express';
import type { OriginPolicy } from './origin-policy.js';

/** A JSON error body in the GraphQL shape, for answers given before GraphQL runs. */
export function httpErrorBody(message: string, code: string) {
  return { errors: [{ message, extensions: { code } }] };
}

/**
 * /mcp's clients read JSON-RPC: a refusal there is a JSON-RPC error (as the
 * MCP SDK's own transport answers), with the same message, and the code in
 * `data` for a caller that branches on it.
 */
export function rpcErrorBody(message: string, code: string) {
  return { jsonrpc: '2.0', error: { code: -32000, message, data: { code } }, id: null };
}

/** True for /mcp and anything under it: the paths that answer in JSON-RPC. */
export function isMcpPath(path: string): boolean {
  return path === '/mcp' || path.startsWith('/mcp/');
}

/**
 * The first handler of every HTTP request, before auth, body parsing and
 * any route: a Host or Origin the policy refuses (DNS rebinding, a page on
 * another origin) gets 403 FORBIDDEN and nothing behind it runs. Every answer
 * says nosniff, so no JSON or text body is ever taken for a script or a page.
 */
export function hostAndOriginGuard(policy: OriginPolicy): RequestHandler {
  return (req, res, next) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    const origin = req.headers.origin;
    const refused = policy.refusal({ host: req.headers.host, origin: Array.isArray(origin) ? origin[0] : origin });
    if (!refused) return next();
    // The body is not read: closing after the answer keeps an unread upload from holding the connection.
    res.setHeader('Connection', 'close');
    res.status(403).json(isMcpPath(req.path) ? rpcErrorBody(refused.message, 'FORBIDDEN') : httpErrorBody(refused.message, 'FORBIDDEN'));
  };
}
