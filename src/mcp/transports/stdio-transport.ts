import process from 'node:process';
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';

/** The longest line (one JSON-RPC message) read from stdin, in bytes; docs/mcp.md states it. */
export const MAX_LINE_BYTES = 4 * 1024 * 1024;

/** JSON-RPC 2.0's codes, and the one MCP clients know for a call before `initialize`. */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const NOT_INITIALIZED = -32002;

/** What may be asked before the handshake: the handshake itself, and a liveness check. */
const BEFORE_INITIALIZE = new Set(['initialize', 'ping']);

/** How much of a line over the bound is kept, to find the request's id in it. */
const ID_PREFIX_BYTES = 1024;

/**
 * MCP over stdio as a JSON-RPC peer: newline-delimited messages, where the
 * SDK's own StdioServerTransport would drop garbage silently, close the
 * stream on a line over 10 MB (the process then exits 0 with no word), and
 * hand any request to the server before `initialize`. Here:
 *
 * - a line that is not JSON is answered with a parse error (-32700, id
 *   null), one that is JSON but no JSON-RPC message with -32600, and reading
 *   goes on;
 * - a line over MAX_LINE_BYTES is answered with -32600 naming the bound (and
 *   the request's id when the line's first bytes give it) and discarded as it
 *   streams in, never held whole;
 * - until an `initialize` has been answered, every request but `initialize`
 *   and `ping` is answered with -32002 and never reaches the server;
 *   notifications are dropped.
 *
 * The relay (`taskbase mcp --url`) uses it too, so both modes answer alike.
 */
export class JsonRpcStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  /** The pieces of the line being read, and their length in bytes. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Set while a line over the bound streams by: its first bytes, kept to find its id. */
  private discarding: Buffer | null = null;
  private initializeIds = new Set<RequestId>();
  private initialized = false;
  private closed = false;

  constructor(
    private readonly stdin: Readable = process.stdin,
    private readonly stdout: Writable = process.stdout,
    private readonly maxLineBytes = MAX_LINE_BYTES,
  ) {}

  async start(): Promise<void> {
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onStreamError);
    this.stdin.once('end', this.onEnd);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onStreamError);
    this.stdin.off('end', this.onEnd);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.pending = [];
    this.discarding = null;
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    // The handshake is over once the server has answered an `initialize` with a result.
    if ('id' in message && message.id !== undefined && this.initializeIds.delete(message.id) && 'result' in message) this.initialized = true;
    return this.write(message);
  }

  private write(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.stdout.once('drain', resolve);
    });
  }

  private readonly onEnd = () => { void this.close(); };
  private readonly onStreamError = (error: Error) => { this.onerror?.(error); };

  private readonly onData = (chunk: Buffer | string) => {
    let rest = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    while (rest.length > 0) {
      const newline = rest.indexOf(0x0a);
      const piece = newline === -1 ? rest : rest.subarray(0, newline);
      this.take(piece);
      if (newline === -1) break;
      this.endLine();
      rest = rest.subarray(newline + 1);
    }
  };

  /** Adds bytes to the line being read, or lets them pass once the line is over the bound. */
  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.discarding) return;
    if (this.pendingBytes + piece.length > this.maxLineBytes) {
      this.discarding = Buffer.concat([...this.pending, piece]).subarray(0, ID_PREFIX_BYTES);
      this.pending = [];
      this.pendingBytes = 0;
      return;
    }
    this.pending.push(piece);
    this.pendingBytes += piece.length;
  }

  private endLine(): void {
    if (this.discarding) {
      const id = leadingId(this.discarding.toString('utf8'));
      this.discarding = null;
      this.refuse(id, INVALID_REQUEST,
        `Request too large: a message on stdin may be at most ${this.maxLineBytes} bytes (${this.maxLineBytes / 1024 / 1024} MiB) on one line; ` +
          'this line was longer and was discarded unread. Send smaller messages (split large texts across calls).');
      return;
    }
    const line = Buffer.concat(this.pending).toString('utf8').replace(/\r$/, '');
    this.pending = [];
    this.pendingBytes = 0;
    if (line.trim() === '') return;
    this.receive(line);
  }

  private receive(line: string): void {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.refuse(null, PARSE_ERROR, 'Parse error: the line is not JSON. Send one JSON-RPC 2.0 message per line, e.g. {"jsonrpc":"2.0","id":1,"method":"ping"}.');
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      this.refuse(idOf(value), INVALID_REQUEST,
        'Invalid Request: the line is JSON but not a JSON-RPC 2.0 message. Send {"jsonrpc":"2.0","id":<number or string>,"method":"<name>","params":{…}}, or a notification without "id".');
      return;
    }
    const message = parsed.data;
    if (!this.initialized && 'method' in message && !BEFORE_INITIALIZE.has(message.method)) {
      // A request gets its answer; a notification (no id) has none to get, and is dropped all the same.
      if ('id' in message) {
        this.refuse(message.id, NOT_INITIALIZED,
          `Server not initialized: send "initialize" first (and "notifications/initialized" after its answer); "${message.method}" was not run.`);
      }
      return;
    }
    if ('method' in message && message.method === 'initialize' && 'id' in message) this.initializeIds.add(message.id);
    this.onmessage?.(message);
  }

  private refuse(id: RequestId | null, code: number, message: string): void {
    // JSON-RPC answers an unidentifiable request with id null, which the SDK's message type does not allow for.
    void this.write({ jsonrpc: '2.0', id, error: { code, message } } as unknown as JSONRPCMessage);
  }
}

function isId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

function idOf(value: unknown): RequestId | null {
  const id = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as { id?: unknown }).id : undefined;
  return isId(id) ? id : null;
}

/**
 * The id of a message from its first bytes, when it comes before anything
 * nested (`{"jsonrpc":"2.0","id":7,"method":…`, the order every SDK writes):
 * an "id" inside params is never taken for it.
 */
function leadingId(prefix: string): RequestId | null {
  const match = /^\s*\{(?:\s*"(?:jsonrpc|method)"\s*:\s*"[^"\\]*"\s*,)*\s*"id"\s*:\s*(-?\d+(?:\.\d+)?|"(?:[^"\\]|\\.)*")\s*[,}]/.exec(prefix);
  if (!match) return null;
  try {
    const id: unknown = JSON.parse(match[1]);
    return isId(id) ? id : null;
  } catch {
    return null;
  }
}
