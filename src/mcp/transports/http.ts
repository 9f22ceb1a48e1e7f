import { randomUUID } from 'node:crypto';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { isDatabaseUnavailable, unavailableMessage } from '../../db/unavailable.js';
import type { Access } from '../../services/kernel/unit-of-work.js';
import type { OriginPolicy } from '../../http/origin-policy.js';
import type { Services } from '../../services/index.js';
import type { WorkWakeups } from '../../services/claims/work-wakeups.js';
import { createMcpServer } from '../mcp-server.js';
import { idleText, type McpSessionLimits } from './session-limits.js';
import { isRefusal, McpSessionTable, type SessionOwner } from './session-table.js';
import { oneClientPerMachine } from '../../http/connection-limits.js';
import { isDomainError } from '../../domain/errors.js';
import { cleanSessionKey } from '../../domain/session-keys.js';
import { ToolRefusal } from '../common/tool-result.js';
import { parseToolSets } from '../tool-sets.js';

interface Connection {
  transport: StreamableHTTPServerTransport;
  server: Server;
  access: Access;
  /** The bearer token that opened it (null with auth off): only that token may use it. */
  principal: string | null;
}

interface McpHttpOptions {
  limits: McpSessionLimits;
  /** What task_next's wait_seconds wakes on: the server's change feed (every writer on every server). */
  wakeups?: WorkWakeups;
  /**
   * The server's Host and Origin policy (src/http/origin-policy.ts), checked here
   * too so /mcp refuses a foreign page whatever sits in front of it. The
   * SDK's own check (StreamableHTTPServerTransport's
   * enableDnsRebindingProtection) is not used: it compares the Host header
   * as sent, port included, and the Origin as an exact string, so it cannot
   * say "localhost on any port", the server's own origin, or "*", which
   * TASKBASE_ALLOWED_HOSTS and TASKBASE_ALLOWED_ORIGINS do.
   */
  origins: OriginPolicy;
}

function header(req: Request, name: string): string | null {
  const value = req.headers[name];
  return (Array.isArray(value) ? value[0] : value)?.trim() || null;
}

function rpcError(res: Response, status: number, message: string, id: string | number | null = null, data?: Record<string, unknown>): void {
  res.status(status).json({ jsonrpc: '2.0', error: { code: -32000, message, ...(data ? { data } : {}) }, id });
}

/** A query-string switch: on as `1` or `true`. */
function flag(value: unknown): boolean {
  return value === '1' || value === 'true';
}

/** The id of a JSON-RPC request body, so a refusal answers it; null when it has none. */
function requestId(body: unknown): string | number | null {
  const id = (body as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/**
 * Streamable HTTP at /mcp (behind the same bearer auth and body limit as
 * /graphql). An initialize request opens an MCP session, which is one agent
 * session (x-session-id joins one, x-session-key finds or starts the one
 * this token's chat key names, x-parent-session-id makes a helper's,
 * ?tools= picks the sets, ?oneActive=1 the one-active rule, ?structured=1
 * structured output beside the text); later requests
 * name it with mcp-session-id. A call outside any MCP session is served
 * statelessly, its plan tools recording only with an x-session-id.
 *
 * Open sessions are capped per token (per client with auth off, the whole
 * loopback range being one) and in all; at a cap the least recently used
 * session in no call is closed for the new one (session-table.ts). One no
 * request names for the idle time is closed too. A client that comes back
 * to a closed session gets 404 and initializes again, as the transport spec
 * has it; its taskbase session and plan are kept (x-session-id or its chat
 * key joins it).
 */
export function mcpHttp(services: Services, logger: Logger, options: McpHttpOptions): { handler: RequestHandler; close(): Promise<void> } {
  const sessions = new McpSessionTable<Connection>(options.limits, (connection, because) => {
    if (because === 'evicted') logger.info({ mcpSessionId: connection.transport.sessionId }, 'MCP session closed to make room at its cap (least recently used, in no call)');
    void connection.transport.close();
  });
  const idle = idleText(options.limits.idleMs);

  const open = (req: Request, access: Access, principal: string | null, stateless: boolean) => {
    const selection = parseToolSets(typeof req.query.tools === 'string' ? req.query.tools : null);
    const sessionId = header(req, 'x-session-id');
    const rawKey = header(req, 'x-session-key');
    if (sessionId && rawKey) throw new ToolRefusal('send x-session-id (a session\'s id) or x-session-key (your chat\'s key), not both.');
    return createMcpServer(services, logger, {
      selection,
      access,
      structured: flag(req.query.structured),
      wakeups: options.wakeups,
      session: {
        sessionId,
        sessionKey: rawKey === null ? null : cleanSessionKey(rawKey),
        parentId: header(req, 'x-parent-session-id'),
        oneActive: flag(req.query.oneActive),
        stateless,
        principal,
      },
    }).server;
  };

  /** Opens an MCP session for an initialize request, or refuses it (nothing built, nothing recorded) when a cap is full. */
  const initialize = async (req: Request, res: Response, access: Access, principal: string | null) => {
    const owner: SessionOwner = principal ? { key: principal, kind: 'token' } : { key: oneClientPerMachine(req.socket.remoteAddress), kind: 'address' };
    const slot = sessions.reserve(owner);
    if (isRefusal(slot)) {
      res.setHeader('Retry-After', String(slot.retryAfterSeconds));
      return rpcError(res, slot.status, slot.message, requestId(req.body), { open: slot.open, limit: slot.limit });
    }
    let opened = false;
    try {
      const server = open(req, access, principal, false);
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          opened = true;
          sessions.add(id, { transport, server, access, principal }, owner, slot);
        },
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.remove(transport.sessionId);
        slot.release();
      };
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    } finally {
      // An initialize that opened no session (a bad tool set, a malformed request) holds no slot.
      if (!opened) slot.release();
    }
  };

  const handler: RequestHandler = async (req, res) => {
    const access = (res.locals.access ?? 'write') as Access;
    const principal = (res.locals.principal ?? null) as string | null;
    const foreign = options.origins.refusal({ host: req.headers.host, origin: req.headers.origin });
    if (foreign) return rpcError(res, 403, foreign.message, requestId(req.body));
    const sessionId = header(req, 'mcp-session-id');
    try {
      if (sessionId) {
        // A GET is the stream a client listens on; anything else is a call, and a session in a call is never closed to make room.
        const used = sessions.use(sessionId, req.method === 'GET' ? 'stream' : 'call');
        if (!used) {
          // The SDK's own "Session not found" (404, -32001), which clients answer by initializing again.
          return res.status(404).json({
            jsonrpc: '2.0', id: requestId(req.body),
            error: {
              code: -32001,
              message: `Session not found: no MCP session has this mcp-session-id (it ended, was idle for ${idle}, was the least recently used when a newer one needed room, or the server restarted). Initialize a new one.`,
            },
          });
        }
        res.on('close', used.done);
        const connection = used.value;
        // A session opened with a write token is not written through by a read-only one.
        if (connection.access === 'write' && access === 'read') return rpcError(res, 403, 'This bearer token may only read; the MCP session was opened with one that may write.');
        // An MCP session is its token's, like the taskbase session behind it: another token may not use its id.
        if (connection.principal !== principal) return rpcError(res, 403, 'This MCP session was opened with another bearer token; use that token, or initialize a session of your own.');
        return await connection.transport.handleRequest(req, res, req.body);
      }
      if (req.method !== 'POST') return rpcError(res, 400, 'Send mcp-session-id to stream or end an MCP session; open one with an initialize POST.');
      if (isInitializeRequest(req.body)) return await initialize(req, res, access, principal);
      const server = open(req, access, principal, true);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    } catch (error) {
      if (error instanceof ToolRefusal || isDomainError(error)) return rpcError(res, 400, `Error: ${error.message}`, requestId(req.body));
      // Outside a tool handler (an initialize starting its session, say), an unreachable database is still "retry", not a fault.
      if (isDatabaseUnavailable(error)) {
        if (!res.headersSent) rpcError(res, 503, `Error: ${unavailableMessage(error)}`, null, { code: 'UNAVAILABLE' });
        return;
      }
      logger.error({ err: error }, 'MCP request failed');
      if (!res.headersSent) rpcError(res, 500, 'Internal server error; nothing was recorded.');
    }
  };

  return {
    handler,
    close: async () => {
      await Promise.all(sessions.drain().map((connection) => connection.transport.close()));
    },
  };
}
