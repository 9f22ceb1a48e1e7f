import fs from 'node:fs';
import type { IncomingMessage, Server, ServerOptions, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { wholeNumberSetting } from '../domain/whole-number-setting.js';

/**
 * How long a client may take and how many connections it may hold, designed
 * so that a flood cannot lock out the local user (the dashboard, the agents
 * and their hooks all come from 127.0.0.1, like any local attacker).
 *
 * A connection is *unproven* from the moment it is accepted until it has
 * sent a complete request that proves it: one carrying a bearer token the
 * server knows (proven as soon as its headers are in, body or not: that is
 * the reserve kept for authenticated requests), or with auth off any request
 * received whole. Idle sockets, headers or bodies trickling in,
 * and connections whose requests were all refused 401 stay unproven.
 *
 * - Per address at most maxConnectionsPerClient connections. At the cap, a
 *   new connection does not wait and is not refused while the address holds
 *   an unproven one: the address's oldest unproven connection is closed
 *   instead (429, saying why). Only an address whose connections are all
 *   proven gets 429 on a new one. So 200 slow bodies from 127.0.0.1 hold at
 *   most the cap, cost themselves their oldest, and a fresh request, with a
 *   token or not, is answered.
 * - In all at most maxConnections (below the open-file limit): at the cap
 *   the oldest unproven connection anywhere is closed for the new one; with
 *   none to close, the new one is closed at once.
 * - Per token at most maxRequestsPerToken requests in progress (body in,
 *   answer not yet sent): past it 429 before the request runs, so one token,
 *   read-only included, cannot hold the server's requests for itself. A
 *   request counts once its body has arrived: until then it costs the server
 *   nothing but a socket, and bodies sent slowly (each cut off by the body
 *   timeout, 408) cannot use up the token's requests for the ones it sends
 *   whole. The body is held back from the application until it is in.
 * - A connection upgraded to a WebSocket leaves these counts to the
 *   subscription server's own caps.
 * - Every request and every connection is also bounded in time (the
 *   timeouts below), so what is held is held for seconds.
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
  /** Open connections one client address may hold; past it the address's oldest unproven one is closed, or with none the new one gets 429. */
  maxConnectionsPerClient: number;
  /** Open connections in all; kept below the process's open-file limit, beyond which the OS would refuse files and sockets alike. */
  maxConnections: number;
  /** Requests in progress for one bearer token; more are answered 429 before they run. */
  maxRequestsPerToken: number;
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
  maxRequestsPerToken: ['TASKBASE_MAX_REQUESTS_PER_TOKEN', 256],
};

/** File descriptors kept back from connections: the database files, PostgreSQL pools, logs and modules. */
const RESERVED_FILES = 128;

export function loadConnectionLimits(env: NodeJS.ProcessEnv, openFileLimit = softOpenFileLimit()): ConnectionLimits {
  const limits = {} as ConnectionLimits;
  for (const [key, [name, fallback]] of Object.entries(VARIABLES) as [keyof ConnectionLimits, [string, number]][]) {
    limits[key] = wholeNumberSetting(name, env[name], fallback);
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
function softOpenFileLimit(): number | null {
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
  return clientAddress(socket.remoteAddress);
}

/** A peer's address with an IPv4-mapped IPv6 address ("::ffff:127.0.0.1") said as IPv4. */
export function clientAddress(remoteAddress: string | undefined): string {
  const address = remoteAddress ?? 'unknown';
  return address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
}

/** What a client is called when it is this machine: the whole loopback range counts as one. */
export const LOOPBACK_CLIENT = 'loopback';

/**
 * The client a request counts against where there is no bearer token to
 * tell callers apart (auth off): its address, except that every loopback
 * address (127.0.0.0/8, ::1, ::ffff:127.x) is one client, LOOPBACK_CLIENT.
 * Any local process may bind any of the 16 million loopback addresses, so a
 * cap per loopback address bounds nothing.
 */
export function oneClientPerMachine(remoteAddress: string | undefined): string {
  const address = clientAddress(remoteAddress);
  return address === '::1' || /^127\.\d+\.\d+\.\d+$/.test(address) ? LOOPBACK_CLIENT : address;
}

/** Who a request is for the per-token cap: a key for a known bearer token, null for none (or auth off). */
interface RequestIdentity {
  /** True when TASKBASE_TOKENS is set: then only a known token proves a connection. */
  authOn: boolean;
  tokenOf(authorization: string | undefined): string | null;
  /** The largest body the application reads (TASKBASE_BODY_LIMIT): a token's request waits for a body up to this before it counts. */
  bodyLimit: number;
}

interface Tracked {
  client: string;
  /** Set once the connection is proven (see ConnectionLimits); it is then never closed to make room. */
  proven: boolean;
  /** The answer of the request in progress, if any: an eviction must not write into an answer already begun. */
  response: ServerResponse | null;
}

/**
 * Applies the limits to a server created with httpServerOptions. The caps
 * sit in front of Node's own handling: a refused or evicted socket gets one
 * raw 429 answer and is closed, and a request refused for its token never
 * reaches the application.
 */
export function limitConnections(server: Server, limits: ConnectionLimits, identity: RequestIdentity): void {
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxRequestsPerSocket = limits.keepAliveMaxRequests;
  server.setTimeout(limits.idleTimeoutMs);

  const tracked = new Map<Socket, Tracked>();
  const perClient = new Map<string, number>();
  // Insertion order is age: the first entry is the oldest unproven connection.
  const unproven = new Set<Socket>();
  const unprovenOf = new Map<string, Set<Socket>>();
  const perToken = new Map<string, number>();

  const settle = (socket: Socket, state: Tracked) => {
    unproven.delete(socket);
    const mine = unprovenOf.get(state.client);
    mine?.delete(socket);
    if (mine?.size === 0) unprovenOf.delete(state.client);
  };
  const prove = (socket: Socket) => {
    const state = tracked.get(socket);
    if (!state || state.proven) return;
    state.proven = true;
    settle(socket, state);
  };
  const evict = (socket: Socket, why: string) => {
    const state = tracked.get(socket)!;
    settle(socket, state);
    if (state.response?.headersSent) socket.destroy();
    else refuse(socket, why);
  };

  // Node's HTTP handling (and anything else listening so far) only ever sees the connections let through.
  const onConnection = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    const client = clientOf(socket);
    if ((perClient.get(client) ?? 0) >= limits.maxConnectionsPerClient) {
      const oldest = unprovenOf.get(client)?.values().next().value;
      if (!oldest) return refuse(socket, fullOfProven(limits.maxConnectionsPerClient));
      evict(oldest, evicted(`its client address reached ${limits.maxConnectionsPerClient} open connections to taskbase (TASKBASE_MAX_CONNECTIONS_PER_CLIENT)`));
    }
    if (tracked.size >= limits.maxConnections) {
      const oldest = unproven.values().next().value;
      if (!oldest) return void socket.destroy();
      evict(oldest, evicted(`taskbase reached ${limits.maxConnections} open connections in all (TASKBASE_MAX_CONNECTIONS)`));
    }
    const state: Tracked = { client, proven: false, response: null };
    tracked.set(socket, state);
    perClient.set(client, (perClient.get(client) ?? 0) + 1);
    unproven.add(socket);
    if (!unprovenOf.has(client)) unprovenOf.set(client, new Set());
    unprovenOf.get(client)!.add(socket);
    socket.once('close', () => {
      settle(socket, state);
      tracked.delete(socket);
      const left = (perClient.get(client) ?? 1) - 1;
      if (left > 0) perClient.set(client, left);
      else perClient.delete(client);
    });
    for (const handler of onConnection) handler.call(server, socket);
  });

  const onRequest = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    const state = tracked.get(socket);
    if (state) {
      state.response = res;
      res.once('close', () => { if (state.response === res) state.response = null; });
    }
    const token = identity.tokenOf(req.headers.authorization);
    if (token) {
      prove(socket);
      whenBodyIn(req, identity.bodyLimit, () => {
        if (res.writableEnded || res.destroyed) return;
        const open = perToken.get(token) ?? 0;
        if (open >= limits.maxRequestsPerToken) return tooManyForToken(res, limits.maxRequestsPerToken);
        perToken.set(token, open + 1);
        res.once('close', () => {
          const left = (perToken.get(token) ?? 1) - 1;
          if (left > 0) perToken.set(token, left);
          else perToken.delete(token);
        });
        for (const handler of onRequest) handler.call(server, req, res);
      });
      return;
    } else if (!identity.authOn) {
      // Proven once the request is whole, so a request still being answered (a long query) is never closed for a newcomer.
      const whole = () => { if (req.complete) prove(socket); };
      req.once('end', whole);
      res.once('finish', whole);
      // A request without a body is whole as soon as the parser is past its headers.
      setImmediate(whole);
    }
    for (const handler of onRequest) handler.call(server, req, res);
  });

  // A WebSocket is counted by the subscription server from here on; it is not an unproven HTTP connection to close.
  server.prependListener('upgrade', (req: IncomingMessage) => prove(req.socket));

  // Node's own 408 has no body; this one says which limit cut the request off. Other client errors answer as Node's do.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    const response = tracked.get(socket)?.response;
    if (error.code === 'ECONNRESET' || !socket.writable || response?.headersSent) return void socket.destroy();
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return answerAndClose(socket, '408 Request Timeout', requestTimedOut(limits));
    const status = error.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : '400 Bad Request';
    socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`);
    socket.destroy();
  });
}

/**
 * Calls `then` once the request's body has arrived whole, with the body
 * still there for the application to read (it is read here and put back);
 * at once for a request without one. A body larger than `heldMax` is not
 * held: its request goes on as its headers are in (the application refuses
 * it as over its size limit, or reads it as it comes).
 */
function whenBodyIn(req: IncomingMessage, heldMax: number, then: () => void): void {
  const length = req.headers['content-length'];
  const chunked = req.headers['transfer-encoding'] !== undefined;
  if (!chunked && (length === undefined || length === '0')) return then();
  if (!chunked && Number(length) > heldMax) return then();
  const chunks: Buffer[] = [];
  let held = 0;
  let done = false;
  const finish = () => {
    done = true;
    req.removeListener('readable', onReadable);
    // Put back before the stream can say 'end': the application reads the body as if it had only just come.
    if (chunks.length) req.unshift(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    then();
  };
  const onReadable = () => {
    if (done) return;
    for (let chunk: Buffer | null; (chunk = req.read() as Buffer | null) !== null;) {
      chunks.push(chunk);
      held += chunk.length;
    }
    if (req.complete || held > heldMax) finish();
  };
  req.on('readable', onReadable);
}

function requestTimedOut(limits: ConnectionLimits): string {
  return JSON.stringify({
    errors: [{
      message: `The request did not arrive whole within ${limits.bodyTimeoutMs / 1000} s (TASKBASE_BODY_TIMEOUT_MS; its headers within ${limits.headersTimeoutMs / 1000} s, ` +
        'TASKBASE_HEADERS_TIMEOUT_MS), so it was cut off and not run. Send the whole request at once, then retry.',
      extensions: { code: 'BAD_REQUEST' },
    }],
  });
}

function tooLarge(message: string): string {
  return JSON.stringify({ errors: [{ message, extensions: { code: 'TOO_LARGE' } }] });
}

function evicted(reached: string): string {
  return tooLarge(
    `This connection was closed to make room: ${reached}, ` +
      'and this was the oldest that had not completed an authenticated request. Send each request whole and promptly, with its bearer token, then retry.',
  );
}

function fullOfProven(cap: number): string {
  return tooLarge(
    `This client address already holds ${cap} open connections to taskbase, the most it may (TASKBASE_MAX_CONNECTIONS_PER_CLIENT). ` +
      'Reuse connections (keep-alive) or wait for one to finish, then retry.',
  );
}

function tooManyForToken(res: ServerResponse, cap: number): void {
  const body = tooLarge(
    `This bearer token already has ${cap} requests in progress, the most one token may (TASKBASE_MAX_REQUESTS_PER_TOKEN). ` +
      'Wait for an answer before sending more, then retry.',
  );
  res.writeHead(429, {
    'Connection': 'close', 'Retry-After': '1', 'Content-Type': 'application/json; charset=utf-8',
    'X-Content-Type-Options': 'nosniff', 'Content-Length': Buffer.byteLength(body),
  }).end(body);
}

/** One short answer, then the connection is closed; whatever the client sends meanwhile is read and dropped. */
function refuse(socket: Socket, body: string): void {
  answerAndClose(socket, '429 Too Many Requests', body, 'Retry-After: 1\r\n');
}

function answerAndClose(socket: Socket, status: string, body: string, extraHeaders = ''): void {
  socket.on('error', () => undefined);
  socket.resume();
  socket.setTimeout(1_000, () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${status}\r\nConnection: close\r\n${extraHeaders}Content-Type: application/json; charset=utf-8\r\n` +
      `X-Content-Type-Options: nosniff\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
