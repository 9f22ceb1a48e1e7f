/**
 * With auth off, every loopback address is one client for the WebSocket
 * caps; the whole server's subscriptions are capped; and subscribers with the
 * same document and variables share one execution per change.
 */
import { createClient, type Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ANSWERS_WITHIN_MS, startTestServer, type TestServer } from '../harness.js';
import { TASK_CHANGED, wsUrl } from '../fixtures/live.js';
import { CREATE_TASK, COMMENT_ON_TASK } from '../fixtures/documents.js';

const MAX_SUBSCRIPTIONS = 8;

let server: TestServer;
/** Statements on the read connection, as the server ran them. */
const reads: string[] = [];
beforeAll(async () => {
  server = await startTestServer({
    env: { TASKBASE_WS_MAX_SOCKETS_PER_CLIENT: '3', TASKBASE_WS_MAX_SUBSCRIPTIONS: String(MAX_SUBSCRIPTIONS) },
    onReadQuery: (sql) => reads.push(sql),
  });
});
afterAll(async () => { await server?.close(); });

/** A graphql-ws client on one socket from `localAddress`, for several subscriptions at once. */
function socketFrom(localAddress: string): Client {
  class FromAddress extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols, { localAddress });
    }
  }
  return createClient({ url: wsUrl(server.url), webSocketImpl: FromAddress, retryAttempts: 0, lazy: false, onNonLazyError: () => undefined });
}

/** A subscription on `client`: every result it gets (data or errors), and whether it ended. */
function listen(client: Client, query: string, variables: Record<string, unknown> = {}) {
  const results: { data?: any; errors?: any[] }[] = [];
  let ended = false;
  const stop = client.subscribe({ query, variables }, {
    next: (value) => { results.push(value as any); },
    error: (error) => { results.push({ errors: Array.isArray(error) ? error : [error] }); ended = true; },
    complete: () => { ended = true; },
  });
  return { results, stop, get ended() { return ended; } };
}

async function until(test: () => boolean, what: string, ms = 10_000): Promise<void> {
  for (const deadline = Date.now() + ms; !test();) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Writes until every one of `listeners` has heard a change (none acknowledges being held), then lets the pokes drain. */
async function held(taskId: string, listeners: { results: unknown[] }[]): Promise<void> {
  for (let attempt = 0; listeners.some((l) => l.results.length === 0); attempt += 1) {
    expect(attempt, 'every subscription hears a change').toBeLessThan(50);
    await server.ok(COMMENT_ON_TASK, { taskId, body: 'poke' });
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await new Promise((resolve) => setTimeout(resolve, 300));
}

async function newTask(): Promise<string> {
  return (await server.ok(CREATE_TASK, { input: { title: 'Watched', goal: 'g', domain: 'caps/watched', items: ['One', 'Two'] } })).createTask.task.id;
}

/** What the server rendered an event from: the read statements that list a task's items. */
const itemReads = () => reads.filter((sql) => /from\s+"?items"?/i.test(sql)).length;

describe('with auth off', () => {
  it('counts 127.0.0.1, 127.0.0.2 and 127.0.0.3 as one client: the fourth loopback socket is refused 429', async () => {
    const clients = ['127.0.0.1', '127.0.0.2', '127.0.0.3'].map(socketFrom);
    try {
      // Each one connected (acknowledged) before the next is tried.
      for (const client of clients) await new Promise<void>((resolve, reject) => { client.on('connected', () => resolve()); client.on('closed', reject); });
      const refused = await new Promise<{ status: number; body: any }>((resolve, reject) => {
        const socket = new WebSocket(wsUrl(server.url), 'graphql-transport-ws', { localAddress: '127.0.0.4' });
        socket.once('open', () => reject(new Error('a fourth loopback socket was let through')));
        socket.once('unexpected-response', (_request, response) => {
          let text = '';
          response.on('data', (chunk: Buffer) => { text += chunk; });
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }));
        });
      });
      expect(refused).toMatchObject({ status: 429, body: { errors: [{ extensions: { code: 'TOO_LARGE' } }] } });
      expect(refused.body.errors[0].message).toContain('TASKBASE_WS_MAX_SOCKETS_PER_CLIENT');
    } finally {
      await Promise.all(clients.map((client) => client.dispose()));
    }
  });
});

describe('subscribers with the same document and variables', () => {
  it('share one execution per change: 6 cost the reads of 1, and each gets the event', async () => {
    const taskId = await newTask();
    const client = socketFrom('127.0.0.1');
    try {
      const one = listen(client, TASK_CHANGED, { id: taskId });
      await held(taskId, [one]);
      let before = itemReads();
      await server.ok(COMMENT_ON_TASK, { taskId, body: 'heard by one' });
      await until(() => one.results.at(-1)?.data?.taskChanged.action === 'COMMENT_ADDED' && one.results.length > 1, 'the event');
      await new Promise((resolve) => setTimeout(resolve, 200));
      const forOne = itemReads() - before;
      expect(forOne).toBeGreaterThan(0);

      const more = Array.from({ length: 5 }, () => listen(client, TASK_CHANGED, { id: taskId }));
      await held(taskId, more);
      const heard = [one, ...more].map((l) => l.results.length);
      before = itemReads();
      await server.ok(COMMENT_ON_TASK, { taskId, body: 'heard by six' });
      await until(() => [one, ...more].every((l, i) => l.results.length > heard[i]), 'the event on all six');
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(itemReads() - before).toBe(forOne);
      for (const listener of [one, ...more]) expect(listener.results.at(-1)?.data?.taskChanged.task.items.nodes).toHaveLength(2);
    } finally {
      await client.dispose();
    }
  });
});

describe('the cap on subscriptions in all', () => {
  it(`refuses subscription ${MAX_SUBSCRIPTIONS + 1} with TOO_LARGE naming the cap; at the cap a write answers fast and is heard by all`, async () => {
    const taskId = await newTask();
    const clients = ['127.0.0.2', '127.0.0.3'].map(socketFrom);
    try {
      // Different variables each (not shared), on two sockets from two loopback addresses.
      const listeners = Array.from({ length: MAX_SUBSCRIPTIONS }, (_, i) =>
        listen(clients[i % 2], `subscription($id: ID!, $first: Int!) { taskChanged(id: $id) { action task { items(first: $first) { nodes { id } } } } }`, { id: taskId, first: i + 1 }));
      await held(taskId, listeners);

      const over = listen(clients[0], TASK_CHANGED, { id: taskId });
      await until(() => over.ended, 'the refusal');
      expect(over.results[0].errors?.[0]).toMatchObject({ extensions: { code: 'TOO_LARGE', limit: MAX_SUBSCRIPTIONS } });
      expect(over.results[0].errors?.[0].message).toContain('TASKBASE_WS_MAX_SUBSCRIPTIONS');

      const heard = listeners.map((l) => l.results.length);
      const start = performance.now();
      await server.ok(COMMENT_ON_TASK, { taskId, body: 'at the cap' });
      expect(performance.now() - start).toBeLessThan(ANSWERS_WITHIN_MS);
      await until(() => listeners.every((l, i) => l.results.length > heard[i]), 'the event on every held subscription');

      // One ends: its place is free again.
      listeners[0].stop();
      await new Promise((resolve) => setTimeout(resolve, 200));
      const again = listen(clients[0], TASK_CHANGED, { id: taskId });
      await held(taskId, [again]);
      expect(again.results.every((result) => !result.errors)).toBe(true);
    } finally {
      await Promise.all(clients.map((client) => client.dispose()));
    }
  });
});
