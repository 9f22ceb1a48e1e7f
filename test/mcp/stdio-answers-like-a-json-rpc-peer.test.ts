import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, testDatabase, type TestServer } from '../harness.js';

/**
 * `taskbase mcp` as a JSON-RPC peer, driven over a real pipe with raw bytes
 * (no SDK client, which never sends what these tests send): garbage and lines
 * over the bound get error answers and the process goes on; nothing but
 * `initialize` and `ping` runs before the handshake.
 */
const CLI = path.resolve('dist/src/cli.js');
const MAX_LINE_BYTES = 4 * 1024 * 1024;
const SPAWNS = { timeout: 120_000 };

interface RpcAnswer {
  id: string | number | null;
  result?: any;
  error?: { code: number; message: string };
}

interface Peer {
  child: ChildProcessWithoutNullStreams;
  /** Writes raw bytes to its stdin. */
  write(bytes: string | Buffer): Promise<void>;
  /** The next answer line not yet taken (parsed), waiting for it. */
  next(): Promise<RpcAnswer>;
  /** Sends a request line and waits for the answer with its id (earlier answers stay queued for next()). */
  request(id: number, method: string, params?: unknown): Promise<RpcAnswer>;
  /** Everything printed on stdout that was not one JSON line. */
  stray(): string[];
  /** The process's peak resident memory so far (VmHWM), in bytes. */
  peakRss(): number;
  exit(): Promise<number | null>;
}

const peers: Peer[] = [];
afterEach(() => { for (const peer of peers.splice(0)) peer.child.kill(); });

function startPeer(args: string[], env: Record<string, string>): Peer {
  const child = spawn(process.execPath, [CLI, 'mcp', ...args], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const answers: RpcAnswer[] = [];
  const stray: string[] = [];
  let waiting: (() => void) | null = null;
  let buffered = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffered += chunk;
    let newline: number;
    while ((newline = buffered.indexOf('\n')) !== -1) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      try {
        answers.push(JSON.parse(line) as RpcAnswer);
      } catch {
        stray.push(line);
      }
    }
    waiting?.();
  });
  child.stderr.resume();
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const waitFor = async (pick: (answer: RpcAnswer) => boolean): Promise<RpcAnswer> => {
    for (;;) {
      const index = answers.findIndex(pick);
      if (index !== -1) return answers.splice(index, 1)[0];
      if (child.exitCode !== null) throw new Error(`taskbase mcp exited (code ${child.exitCode}) with no answer`);
      await Promise.race([new Promise<void>((resolve) => { waiting = resolve; }), exited]);
    }
  };
  const write = (bytes: string | Buffer) =>
    new Promise<void>((resolve, reject) => child.stdin.write(bytes, (error) => (error ? reject(error) : resolve())));
  const peer: Peer = {
    child,
    write,
    next: () => waitFor(() => true),
    request: async (id, method, params) => {
      await write(`${JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) })}\n`);
      return waitFor((answer) => answer.id === id);
    },
    stray: () => stray,
    peakRss: () => {
      const line = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmHWM:'))!;
      return Number(/(\d+)/.exec(line)![1]) * 1024;
    },
    exit: () => { child.stdin.end(); return exited; },
  };
  peers.push(peer);
  return peer;
}

const INITIALIZE = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-pipe', version: '1.0.0' } };

async function initialized(peer: Peer): Promise<void> {
  const answer = await peer.request(1, 'initialize', INITIALIZE);
  expect(answer.result?.serverInfo?.name).toBe('taskbase');
  await peer.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
}

describe('taskbase mcp on its own database', () => {
  let databaseUrl: string;
  beforeAll(async () => { ({ databaseUrl } = await testDatabase()); });

  it('answers a line that is not JSON with a parse error (-32700, id null) and goes on serving', SPAWNS, async () => {
    const peer = startPeer(['--tools', 'knowledge-base'], { DATABASE_URL: databaseUrl });
    await peer.write('this is not json\n');
    const parseError = await peer.next();
    expect(parseError).toMatchObject({ id: null, error: { code: -32700 } });
    expect(parseError.error!.message).toMatch(/not JSON/);

    await peer.write('{"jsonrpc":"2.0","id":2,"method":\n');
    expect(await peer.next()).toMatchObject({ id: null, error: { code: -32700 } });
    await peer.write('[1, 2]\n');
    expect(await peer.next()).toMatchObject({ id: null, error: { code: -32600 } });

    await initialized(peer);
    expect((await peer.request(3, 'tools/list')).result.tools.length).toBeGreaterThan(0);
    expect(peer.stray()).toEqual([]);
    expect(await peer.exit()).toBe(0);
  });

  it('refuses every request but initialize and ping before the handshake, with its id, and runs none of them', SPAWNS, async () => {
    const peer = startPeer(['--tools', 'knowledge-base'], { DATABASE_URL: databaseUrl });
    const early = await peer.request(7, 'tools/call', {
      name: 'task', arguments: { title: 'Written before initialize', goal: 'Must not be recorded.', items: 'One', domain: 'stdio/early' },
    });
    expect(early).toMatchObject({ id: 7, error: { code: -32002 } });
    expect(early.error!.message).toMatch(/not initialized.*initialize/i);
    expect(await peer.request('list' as unknown as number, 'tools/list')).toMatchObject({ id: 'list', error: { code: -32002 } });
    expect(await peer.request(8, 'ping')).toMatchObject({ id: 8, result: {} });

    await initialized(peer);
    const listed = await peer.request(9, 'tools/call', { name: 'list_by_domain', arguments: { domain: 'stdio/early' } });
    expect(listed.result.isError).toBeFalsy();
    expect(listed.result.structuredContent).toBeUndefined();
    expect(listed.result.content[0].text).toMatch(/^0 in stdio\/early:\n/);
    expect(await peer.exit()).toBe(0);
  });

  it(`answers a line over ${MAX_LINE_BYTES} bytes with an error naming the bound, without holding it, and goes on serving`, SPAWNS, async () => {
    const peer = startPeer(['--tools', 'knowledge-base'], { DATABASE_URL: databaseUrl });
    await initialized(peer);
    const before = peer.peakRss();

    // 128 MiB in one line (the SDK's own transport exits silently past 10 MB), written in 1 MiB pieces as a client would stream it.
    const size = 128 * 1024 * 1024;
    await peer.write(`{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"remember","arguments":{"title":"Huge","domain":"stdio/huge","body":"`);
    const piece = Buffer.alloc(1024 * 1024, 'a');
    for (let written = 0; written < size; written += piece.length) await peer.write(piece);
    await peer.write('"}}}\n');
    const refusal = await peer.next();
    expect(refusal).toMatchObject({ id: 41, error: { code: -32600 } });
    expect(refusal.error!.message).toContain(String(MAX_LINE_BYTES));
    expect(await peer.request(42, 'ping')).toMatchObject({ id: 42, result: {} });

    // Streamed by, never buffered whole: the peak grew by less than half the line (pipe chunks awaiting GC, about 40 MB here).
    expect(peer.peakRss() - before).toBeLessThan(size / 2);
    const listed = await peer.request(43, 'tools/call', { name: 'list_by_domain', arguments: { domain: 'stdio/huge' } });
    expect(listed.result.structuredContent).toBeUndefined();
    expect(listed.result.content[0].text).toMatch(/^0 in stdio\/huge:\n/);
    // A line just under the bound is read and run.
    const body = 'b'.repeat(MAX_LINE_BYTES - 1024);
    const near = await peer.request(44, 'tools/call', { name: 'remember', arguments: { title: 'Near the bound', domain: 'stdio/near', body } });
    expect(near.error).toBeUndefined();
    expect(peer.stray()).toEqual([]);
    expect(await peer.exit()).toBe(0);
  });
});

describe('taskbase mcp --url (the relay to a running server)', () => {
  let server: TestServer;
  beforeAll(async () => { server = await startTestServer(); });
  afterAll(async () => { await server?.close(); });

  it('answers garbage and early calls itself, the same way, before anything reaches the server', SPAWNS, async () => {
    const peer = startPeer(['--url', server.url, '--tools', 'knowledge-base'], {});
    await peer.write('}{\n');
    expect(await peer.next()).toMatchObject({ id: null, error: { code: -32700 } });
    expect(await peer.request(5, 'tools/call', { name: 'remember', arguments: { title: 'Early', body: 'x', domain: 'relay/early' } }))
      .toMatchObject({ id: 5, error: { code: -32002 } });
    await initialized(peer);
    const listed = await peer.request(6, 'tools/call', { name: 'list_by_domain', arguments: { domain: 'relay/early' } });
    expect(listed.result.structuredContent).toBeUndefined();
    expect(listed.result.content[0].text).toMatch(/^0 in relay\/early:\n/);
    expect(await peer.exit()).toBe(0);
  });
});
