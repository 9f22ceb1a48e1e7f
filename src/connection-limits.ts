import fs from 'node:fs';
import type { Server, ServerOptions } from 'node:http';
import type { Socket } from 'node:net';

/**
 * How long a client may take and how many connections it may hold. Agents
 * send small JSON bodies from nearby, so a request that is not in within
 * seconds is a stuck or hostile client, and one address holding hundreds of
 * connections must not crowd out everyone else.
 */
export interface ConnectionLimits {
  /** The request line and headers must be in within this (else 408, closed). */
  headersTimeoutMs: number;
  /** The whole request, body included, must be in within this (else 408, closed): a body sent byte by byte is cut off. */
  bodyTimeoutMs: number;
  /** A connection on which no byte moves either way for this long is closed (a stalled body, a client that stops reading). */
  idleTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** After this many requests on one connection the answer says Connection: close. */
  keepAliveMaxRequests: number;
  /** Open connections one client address may hold; more are refused at once with 429. */
  maxConnectionsPerClient: number;
  /** Open connections in all; kept below the process's open-file limit, beyond which the OS would refuse files and sockets alike. */
  maxConnections: number;
}

/** The variables of README's configuration table, with their defaults. */
const VARIABLES: Record<keyof ConnectionLimits, [name: string, fallback: number]> = {
  headersTimeoutMs: ['TASKBASE_HEADERS_TIMEOUT_MS', 10_000],
  bodyTimeoutMs: ['TASKBASE_BODY_TIMEOUT_MS', 30_000],
  idleTimeoutMs: ['TASKBASE_IDLE_TIMEOUT_MS', 30_000],
  keepAliveTimeoutMs: ['TASKBASE_KEEP_ALIVE_TIMEOUT_MS', 5_000],
  keepAliveMaxRequests: ['TASKBASE_KEEP_ALIVE_MAX_REQUESTS', 1_000],
  maxConnectionsPerClient: ['TASKBASE_MAX_CONNECTIONS_PER_CLIENT', 128],
  maxConnections: ['TASKBASE_MAX_CONNECTIONS', 4_096],
};

/** File descriptors kept back from connections: the database files, PostgreSQL pools, logs and modules. */
const RESERVED_FILES = 128;

export function loadConnectionLimits(env: NodeJS.ProcessEnv, openFileLimit = softOpenFileLimit()): ConnectionLimits {
  const limits = {} as ConnectionLimits;
  for (const [key, [name, fallback]] of Object.entries(VARIABLES) as [keyof ConnectionLimits, [string, number]][]) {
    const raw = env[name];
    const value = raw === undefined || raw.trim() === '' ? fallback : Number(raw);
    if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a whole number above 0; got "${raw}".`);
    limits[key] = value;
  }
  if (limits.headersTimeoutMs > limits.bodyTimeoutMs) {
    throw new Error(`TASKBASE_HEADERS_TIMEOUT_MS (${limits.headersTimeoutMs}) must not be above TASKBASE_BODY_TIMEOUT_MS (${limits.bodyTimeoutMs}): the headers are part of the request.`);
  }
  if (openFileLimit !== null) {
    const ceiling = openFileLimit > 2 * RESERVED_FILES ? openFileLimit - RESERVED_FILES : Math.floor(openFileLimit / 2);
    limits.maxConnections = Math.max(1, Math.min(limits.maxConnections, ceiling));
  }
  return limits;
}

/** The soft "Max open files" of this process, from /proc on Linux; null where that cannot be read. */
export function softOpenFileLimit(): number | null {
  try {
    const line = fs.readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max open files'));
    const soft = Number(line?.split(/\s{2,}/)[1]);
    return Number.isInteger(soft) && soft > 0 ? soft : null;
  } catch {
    return null;
  }
}

/** Options only `http.createServer` takes: the timeouts are checked every connectionsCheckingInterval (Node's default, 30 s, would let a slow client live that long past them). */
export function httpServerOptions(limits: ConnectionLimits): ServerOptions {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.bodyTimeoutMs,
    connectionsCheckingInterval: Math.max(100, Math.min(1_000, Math.floor(limits.headersTimeoutMs / 2))),
    keepAliveTimeout: limits.keepAliveTimeoutMs,
  };
}

/** "::ffff:127.0.0.1" and "127.0.0.1" are one client. */
function clientOf(socket: Socket): string {
  const address = socket.remoteAddress ?? 'unknown';
  return address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
}

/**
 * Applies the limits to a server created with httpServerOptions. The
 * per-client cap sits in front of Node's own connection handling, so a
 * refused socket is never parsed as HTTP: it gets one 429 answer and is
 * closed.
 */
export function limitConnections(server: Server, limits: ConnectionLimits): void {
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxRequestsPerSocket = limits.keepAliveMaxRequests;
  server.maxConnections = limits.maxConnections;
  server.setTimeout(limits.idleTimeoutMs);

  const open = new Map<string, number>();
  // Node's HTTP handling (and anything else listening so far) only ever sees the connections let through.
  const handlers = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    const client = clientOf(socket);
    const count = open.get(client) ?? 0;
    if (count >= limits.maxConnectionsPerClient) return refuse(socket, limits.maxConnectionsPerClient);
    open.set(client, count + 1);
    socket.once('close', () => {
      const left = (open.get(client) ?? 1) - 1;
      if (left > 0) open.set(client, left);
      else open.delete(client);
    });
    for (const handler of handlers) handler.call(server, socket);
  });
}

/** One short answer, then the connection is closed; whatever the client sends meanwhile is read and dropped. */
function refuse(socket: Socket, cap: number): void {
  const body = JSON.stringify({
    errors: [{
      message: `This client address already holds ${cap} open connections to taskbase, the most it may (TASKBASE_MAX_CONNECTIONS_PER_CLIENT). ` +
        'Reuse connections (keep-alive) or wait for one to finish, then retry.',
      extensions: { code: 'TOO_LARGE' },
    }],
  });
  socket.on('error', () => undefined);
  socket.resume();
  socket.setTimeout(1_000, () => socket.destroy());
  socket.end(
    'HTTP/1.1 429 Too Many Requests\r\nConnection: close\r\nRetry-After: 1\r\nContent-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
