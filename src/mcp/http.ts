import { randomUUID } from 'node:crypto';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import type { Access } from '../graphql/context.js';
import type { Services } from '../services/index.js';
import { createMcpServer } from './mcp-server.js';
import { ToolRefusal } from './tool-result.js';
import { parseToolSets } from './tool-sets.js';

interface Connection {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
  access: Access;
  /** When a request last named it (ms). */
  /** The bearer token that opened it (null with auth off): only that token may use it. */
  principal: string | null;
  seen: number;
}

/**
 * An MCP session no request has named for this long is closed: clients
 * often go away without DELETE, and each open one holds a server in memory.
 * A client that comes back gets 404 and initializes again, as the transport
 * spec has it; its taskbase session and plan are kept (x-session-id joins it).
 */
const IDLE_MS = 30 * 60_000;

function header(req: Request, name: string): string | null {
  const value = req.headers[name];
  return (Array.isArray(value) ? value[0] : value)?.trim() || null;
}

function rpcError(res: Response, status: number, message: string): void {
  res.status(status).json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });
}

/**
 * Streamable HTTP at /mcp (behind the same bearer auth and body limit as
 * /graphql). An initialize request opens an MCP session, which is one agent
 * session (x-session-id joins one, x-parent-session-id makes a helper's,
 * ?tools= picks the sets, ?oneActive=1 the one-active rule); later requests
 * name it with mcp-session-id. A call outside any MCP session is served
 * statelessly, its plan tools recording only with an x-session-id.
 */
export function mcpHttp(services: Services, logger: Logger): { handler: RequestHandler; close(): Promise<void> } {
  const connections = new Map<string, Connection>();
  const sweeper = setInterval(() => {
    const cutoff = Date.now() - IDLE_MS;
    for (const [id, connection] of connections) {
      if (connection.seen >= cutoff) continue;
      connections.delete(id);
      void connection.transport.close();
    }
  }, 60_000);
  sweeper.unref();

  const open = (req: Request, access: Access, principal: string | null, stateless: boolean) => {
    const selection = parseToolSets(typeof req.query.tools === 'string' ? req.query.tools : null);
    return createMcpServer(services, logger, {
      selection,
      access,
      session: {
        sessionId: header(req, 'x-session-id'),
        parentId: header(req, 'x-parent-session-id'),
        oneActive: req.query.oneActive === '1' || req.query.oneActive === 'true',
        stateless,
        principal,
      },
    }).server;
  };

  const handler: RequestHandler = async (req, res) => {
    const access = (res.locals.access ?? 'write') as Access;
    const principal = (res.locals.principal ?? null) as string | null;
    const sessionId = header(req, 'mcp-session-id');
    try {
      if (sessionId) {
        const connection = connections.get(sessionId);
        if (!connection) return rpcError(res, 404, 'No MCP session has this mcp-session-id (it ended, or the server restarted). Initialize a new one.');
        // A session opened with a write token is not written through by a read-only one.
        connection.seen = Date.now();
        if (connection.access === 'write' && access === 'read') return rpcError(res, 403, 'This bearer token may only read; the MCP session was opened with one that may write.');
        // An MCP session is its token's, like the taskbase session behind it: another token may not use its id.
        if (connection.principal !== principal) return rpcError(res, 403, 'This MCP session was opened with another bearer token; use that token, or initialize a session of your own.');
        return await connection.transport.handleRequest(req, res, req.body);
      }
      if (req.method !== 'POST') return rpcError(res, 400, 'Send mcp-session-id to stream or end an MCP session; open one with an initialize POST.');
      if (isInitializeRequest(req.body)) {
        const server = open(req, access, principal, false);
        const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => void connections.set(id, { transport, server, access, principal, seen: Date.now() }),
        });
        transport.onclose = () => {
          if (transport.sessionId) connections.delete(transport.sessionId);
        };
        await server.connect(transport);
        return await transport.handleRequest(req, res, req.body);
      }
      const server = open(req, access, principal, true);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    } catch (error) {
      if (error instanceof ToolRefusal) return rpcError(res, 400, `Error: ${error.message}`);
      logger.error({ err: error }, 'MCP request failed');
      if (!res.headersSent) rpcError(res, 500, 'Internal server error; nothing was recorded.');
    }
  };

  return {
    handler,
    close: async () => {
      clearInterval(sweeper);
      await Promise.all([...connections.values()].map((connection) => connection.transport.close()));
      connections.clear();
    },
  };
}
