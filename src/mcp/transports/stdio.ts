import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { Services } from '../../services/index.js';
import { createMcpServer } from '../mcp-server.js';
import { JsonRpcStdioTransport } from './stdio-transport.js';
import type { SessionOptions } from '../common/tool-context.js';
import type { ToolSelection } from '../tool-sets.js';

interface StdioOptions {
  selection: ToolSelection;
  /** The --tools argument as given, passed on to a running server by the relay. */
  tools: string | null;
  /** --structured: outputSchemas and structuredContent beside the text (tool-registry.ts says why it is off by default). */
  structured: boolean;
  session: Omit<SessionOptions, 'preset' | 'stateless'>;
}

/** Serves the tools over stdio on this process's own database; resolves when the client closes stdin. */
export async function serveStdio(services: Services, logger: Logger, options: StdioOptions): Promise<void> {
  const { server } = createMcpServer(services, logger, { selection: options.selection, session: options.session, access: 'write', structured: options.structured });
  const transport = new JsonRpcStdioTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
  });
  await server.connect(transport);
  await closed;
  await server.close();
}

/**
 * `taskbase mcp --url`: relays MCP between stdio and a running server's
 * /mcp (the origin of the GraphQL URL given), so every tool runs where the
 * database is and answers exactly as it does over HTTP. TASKBASE_TOKEN is
 * its bearer token; the session options travel as the HTTP transport's
 * headers and query.
 */
export async function relayStdio(graphqlUrl: string, token: string | undefined, logger: Logger, options: StdioOptions): Promise<void> {
  const url = new URL('/mcp', graphqlUrl);
  if (options.tools) url.searchParams.set('tools', options.tools);
  if (options.session.oneActive) url.searchParams.set('oneActive', '1');
  if (options.structured) url.searchParams.set('structured', '1');
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (options.session.sessionId) headers['x-session-id'] = options.session.sessionId;
  if (options.session.sessionKey) headers['x-session-key'] = options.session.sessionKey;
  if (options.session.parentId) headers['x-parent-session-id'] = options.session.parentId;
  const remote = new StreamableHTTPClientTransport(url, { requestInit: { headers } });
  const local = new JsonRpcStdioTransport();

  const closed = new Promise<void>((resolve) => {
    local.onclose = () => resolve();
  });
  remote.onmessage = (message) => {
    // The HTTP transport sends the negotiated version on every later request, as the SDK's own client does.
    const version = (message as { result?: { protocolVersion?: unknown } }).result?.protocolVersion;
    if (typeof version === 'string') remote.setProtocolVersion(version);
    void local.send(message);
  };
  remote.onerror = (error) => logger.warn({ err: error }, 'taskbase server stream failed');
  local.onmessage = (message: JSONRPCMessage) => {
    remote.send(message).catch((error: Error) => {
      logger.error({ err: error }, 'taskbase server refused a message');
      const id = (message as { id?: string | number }).id;
      if (id !== undefined) {
        void local.send({ jsonrpc: '2.0', id, error: { code: -32000, message: `The taskbase server at ${url.origin} did not take the call: ${error.message}` } });
      }
    });
  };
  await remote.start();
  await local.start();
  await closed;
  await remote.terminateSession().catch(() => undefined);
  await remote.close();
}
