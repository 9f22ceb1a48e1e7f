/**
 * Live updates over WebSocket cannot be used to exhaust the server or to
 * listen in from another web page: the upgrade is held to the Host and
 * Origin policy, sockets are capped per client address and per token,
 * subscriptions per socket, messages at a few hundred KB, and every event
 * is an answer with a size and time budget of its own.
 */
import { createClient, type Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestServer, type TestServer } from '../harness.js';
import { subscribe, whenHeld, wsUrl } from '../fixtures/live.js';
import { createTask, type Item } from '../fixtures/tasks.js';
import { ADD_ITEMS, COMMENT_ON_TASK } from '../fixtures/documents.js';

const SETTINGS_CHANGED = 'subscription { reminderSettingsChanged { enabled } }';
const POKE_SETTINGS = 'mutation { updateReminderSettings(enabled: true) { enabled } }';

const open: { close(): Promise<void> | void }[] = [];
const held = <T extends { close(): Promise<void> | void }>(live: T) => (open.push(live), live);
afterAll(async () => { await Promise.all(open.map((live) => live.close())); });

/** What a raw upgrade got: the HTTP refusal (status and JSON body), or the socket it opened. */
function upgrade(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any } | { socket: WebSocket }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(wsUrl(url), 'graphql-transport-ws', { headers });
    socket.once('open', () => resolve({ socket: held(socket) }));
    socket.once('unexpected-response', (_request, response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => { text += chunk; });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }));
    });
    socket.once('error', reject);
  });
}

function closedWith(socket: WebSocket): Promise<{ code: number; reason: string }> {
  return new Promise((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: String(reason) })));
}

/** A graphql-ws client on one socket, for several subscriptions at once. */
function oneSocket(url: string, options: { authorization?: string } = {}): Client {
  const client = createClient({
    url: wsUrl(url),
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    lazy: false,
    // Sockets these tests close on purpose (caps, 1009) are expected: graphql-ws would print each close event to stderr.
    onNonLazyError: () => undefined,
    connectionParams: options.authorization ? { authorization: options.authorization } : undefined,
  });
  held({ close: () => client.dispose() });
  return client;
}

/** The first thing a subscription on `client` gets: an event, or its error. */
function firstOf(client: Client, query: string): { result: Promise<{ data?: any; errors?: any[] }>; stop: () => void } {
  let stop: () => void = () => undefined;
  const result = new Promise<{ data?: any; errors?: any[] }>((resolve) => {
    stop = client.subscribe({ query }, {
      next: (value) => resolve(value as { data?: any }),
      error: (error) => resolve({ errors: Array.isArray(error) ? error : [error] }),
      complete: () => undefined,
    });
  });
  return { result, stop: () => stop() };
}

/** Every result a subscription gets, data or errors alike (an event refused for its size is one result; the subscription goes on). */
function results(url: string, query: string, variables: Record<string, unknown>) {
  const queue: { data?: any; errors?: any[] }[] = [];
  const waiters: ((value: { data?: any; errors?: any[] } | null) => void)[] = [];
  const client = oneSocket(url);
  client.subscribe({ query, variables }, {
    next: (value) => { const waiter = waiters.shift(); if (waiter) waiter(value as any); else queue.push(value as any); },
    // An ended subscription (its socket closed) hears nothing more: every wait for it then comes back empty.
    error: () => { for (const waiter of waiters.splice(0)) waiter(null); },
    complete: () => undefined,
  });
  const next = (ms: number) => new Promise<{ data?: any; errors?: any[] } | null>((resolve) => {
    if (queue.length) return resolve(queue.shift()!);
    const timer = setTimeout(() => { waiters.splice(waiters.indexOf(waiter), 1); resolve(null); }, ms);
    const waiter = (value: { data?: any; errors?: any[] } | null) => { clearTimeout(timer); resolve(value); };
    waiters.push(waiter);
  });
  return {
    next,
    /** Pokes until a result arrives, then drains what the pokes sent. */
    async held(poke: () => Promise<unknown>): Promise<void> {
      for (let attempt = 0; attempt < 50; attempt += 1) {
        await poke();
        if (!(await next(300))) continue;
        while (await next(500));
        return;
      }
      throw new Error('the subscription never heard a change');
    },
    close: () => client.dispose(),
  };
}

describe('the upgrade, with the Host and Origin policy', () => {
  let server: TestServer;
  beforeAll(async () => { server = await startTestServer(); });
  afterAll(async () => { await server?.close(); });

  it('refuses a page on another origin with 403 FORBIDDEN, and opens no socket', async () => {
    const refused = await upgrade(server.url, { origin: 'http://evil.example' });
    expect(refused).toMatchObject({ status: 403, body: { errors: [{ extensions: { code: 'FORBIDDEN' } }] } });
    expect((refused as { body: any }).body.errors[0].message).toContain('TASKBASE_ALLOWED_ORIGINS');
  });

  it('refuses a foreign Host (DNS rebinding) with 403 FORBIDDEN', async () => {
    const refused = await upgrade(server.url, { host: 'evil.example', origin: 'http://evil.example' });
    expect(refused).toMatchObject({ status: 403, body: { errors: [{ extensions: { code: 'FORBIDDEN' } }] } });
    expect((refused as { body: any }).body.errors[0].message).toContain('TASKBASE_ALLOWED_HOSTS');
    const hostOnly = await upgrade(server.url, { host: 'evil.example' });
    expect(hostOnly).toMatchObject({ status: 403 });
  });

  it("serves the dashboard's own origin: its subscription hears changes", async () => {
    const origin = new URL(server.url).origin;
    class FromTheDashboard extends WebSocket {
      constructor(address: string, protocols?: string | string[]) {
        super(address, protocols, { headers: { origin } });
      }
    }
    const client = createClient({ url: wsUrl(server.url), webSocketImpl: FromTheDashboard, retryAttempts: 0 });
    held({ close: () => client.dispose() });
    const heard = new Promise<any>((resolve, reject) => {
      client.subscribe({ query: SETTINGS_CHANGED }, { next: resolve, error: reject, complete: () => undefined });
    });
    // Poke until the subscription is held (no message acknowledges it).
    let answer: any;
    for (let attempt = 0; attempt < 50 && !answer; attempt += 1) {
      await server.ok(POKE_SETTINGS);
      answer = await Promise.race([heard, new Promise((resolve) => setTimeout(resolve, 200, null))]);
    }
    expect(answer.data.reminderSettingsChanged.enabled).toBe(true);
  });

  it('closes the socket with 1009 on a message over 256 KB', async () => {
    const opened = await upgrade(server.url);
    const { socket } = opened as { socket: WebSocket };
    const closed = closedWith(socket);
    socket.send(JSON.stringify({ type: 'connection_init', payload: { pad: 'x'.repeat(300 * 1024) } }));
    expect((await closed).code).toBe(1009);
  });
});

describe('caps on sockets and subscriptions', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      env: {
        TASKBASE_TOKENS: 'alpha,beta:read',
        TASKBASE_WS_MAX_SOCKETS_PER_CLIENT: '3',
        TASKBASE_WS_MAX_SOCKETS_PER_TOKEN: '2',
        TASKBASE_WS_MAX_SUBSCRIPTIONS_PER_SOCKET: '2',
      },
    });
  });
  afterAll(async () => { await server?.close(); });
  const write = { headers: { authorization: 'Bearer alpha' } };
  const poke = async () => expect((await server.gql(POKE_SETTINGS, {}, write)).errors).toBeUndefined();

  it('closes a token\'s socket past its cap with 4429 saying the cap, refuses an address past its cap with 429, and frees a place on close', async () => {
    const first = held(subscribe(server.url, SETTINGS_CHANGED, {}, { authorization: 'Bearer beta' }));
    const second = held(subscribe(server.url, SETTINGS_CHANGED, {}, { authorization: 'Bearer beta' }));
    await whenHeld(first, poke);
    await whenHeld(second, poke);

    const third = held(subscribe(server.url, SETTINGS_CHANGED, {}, { authorization: 'Bearer beta' }));
    expect(await third.closed).toEqual({ code: 4429, reason: expect.stringContaining('TASKBASE_WS_MAX_SOCKETS_PER_TOKEN') });

    // Another token from the same address: its own count, up to the address's cap of 3.
    const other = held(subscribe(server.url, SETTINGS_CHANGED, {}, { authorization: 'Bearer alpha' }));
    await whenHeld(other, poke);
    const refused = await upgrade(server.url);
    expect(refused).toMatchObject({ status: 429, body: { errors: [{ extensions: { code: 'TOO_LARGE' } }] } });
    expect((refused as { body: any }).body.errors[0].message).toContain('TASKBASE_WS_MAX_SOCKETS_PER_CLIENT');

    await first.close();
    await first.closed;
    const again = held(subscribe(server.url, SETTINGS_CHANGED, {}, { authorization: 'Bearer beta' }));
    await whenHeld(again, poke);
  });
});

describe('the cap on subscriptions per socket', () => {
  let server: TestServer;
  beforeAll(async () => { server = await startTestServer({ env: { TASKBASE_WS_MAX_SUBSCRIPTIONS_PER_SOCKET: '2' } }); });
  afterAll(async () => { await server?.close(); });
  const poke = () => server.ok(POKE_SETTINGS);

  it('refuses a subscription past the per-socket cap with TOO_LARGE saying the cap, and takes one once another completes', async () => {
    const client = oneSocket(server.url);
    const subscriptions = [firstOf(client, SETTINGS_CHANGED), firstOf(client, SETTINGS_CHANGED)];
    const over = firstOf(client, SETTINGS_CHANGED);
    const refusal = await over.result;
    expect(refusal.errors?.[0]).toMatchObject({ extensions: { code: 'TOO_LARGE', limit: 2 } });
    expect(refusal.errors?.[0].message).toContain('TASKBASE_WS_MAX_SUBSCRIPTIONS_PER_SOCKET');

    subscriptions[0].stop();
    const replacement = firstOf(client, SETTINGS_CHANGED);
    let heard: any = null;
    for (let attempt = 0; attempt < 50 && !heard; attempt += 1) {
      await poke();
      heard = await Promise.race([replacement.result, new Promise((resolve) => setTimeout(resolve, 200, null))]);
    }
    expect(heard.data.reminderSettingsChanged.enabled).toBe(true);
    await client.dispose();
  });
});

describe('every event its own answer', () => {
  let server: TestServer;
  beforeAll(async () => { server = await startTestServer(); });
  afterAll(async () => { await server?.close(); });

  /** Notes of `chars` characters each, made 40 to a request. */
  async function notes(count: number, chars: number, tag: string): Promise<string[]> {
    const body = 'x'.repeat(chars);
    const ids: string[] = [];
    for (let start = 0; start < count; start += 40) {
      const batch = Array.from({ length: Math.min(40, count - start) }, (_, i) => `n${i}: createNote(input: { title: "${tag} ${start + i}", body: "${body}", domain: "bounded/${tag}" }) { id }`);
      ids.push(...Object.values(await server.ok(`mutation { ${batch.join('\n')} }`)).map((note: any) => note.id));
    }
    return ids;
  }

  /** A task of `count` items, each linked to every one of `linked`. */
  async function linkedTask(count: number, linked: string[], tag: string): Promise<{ taskId: string; items: Item[] }> {
    const labels = Array.from({ length: count }, (_, i) => `${tag} ${i + 1}`);
    const { task, items } = await createTask(server, labels.slice(0, 100), { domain: `bounded/${tag}` });
    for (let start = 100; start < count; start += 100) {
      items.push(...(await server.ok(ADD_ITEMS, { input: { taskId: task.id, items: labels.slice(start, start + 100) } })).addItems.items);
    }
    const related = JSON.stringify(linked);
    for (let start = 0; start < items.length; start += 50) {
      const batch = items.slice(start, start + 50).map((item, i) => `m${i}: updateItem(input: { id: "${item.id}", related: ${related} }) { id }`);
      await server.ok(`mutation { ${batch.join('\n')} }`);
    }
    return { taskId: task.id, items };
  }

  const RELATED = 'subscription($id: ID!) { taskChanged(id: $id) { action task { items(first: 5) { nodes { related { id ... on Note { body } } } } } } }';

  it('gives each event a fresh budget: 40 events of about 1 MB are all sent whole', async () => {
    // 5 items × 100 notes of 2,000 characters: about 1 MB per event; 40 of them are past one 32 MB budget.
    const linked = await notes(100, 2_000, 'megabyte');
    const { taskId } = await linkedTask(5, linked, 'megabyte');
    const live = held(results(server.url, RELATED, { id: taskId }));
    await live.held(() => server.ok(COMMENT_ON_TASK, { taskId, body: 'poke' }));
    for (let i = 0; i < 40; i += 1) {
      await server.ok(COMMENT_ON_TASK, { taskId, body: `event ${i}` });
      const event = await live.next(30_000);
      expect(event?.errors).toBeUndefined();
      expect(event?.data.taskChanged.task.items.nodes).toHaveLength(5);
      expect(event?.data.taskChanged.task.items.nodes.every((item: { related: unknown[] }) => item.related.length === 100)).toBe(true);
    }
  }, 300_000);

  it('refuses a subscription whose events could pass the budget before reading anything, and writes go on', async () => {
    // 200 items × the same 100 notes of 2,000 characters: each event could be about 40 MB, over the 32 MB a query may plan.
    const linked = await notes(100, 2_000, 'heavy');
    const { taskId } = await linkedTask(200, linked, 'heavy');
    const heavy = `subscription { taskChanged(id: "${taskId}") { action task { items(first: 200) { nodes { related { id ... on Note { body } } } } } } }`;
    const refused = await Promise.all(Array.from({ length: 10 }, () => firstOf(oneSocket(server.url), heavy).result));
    for (const answer of refused) {
      expect(answer.data ?? null).toBeNull();
      expect(answer.errors?.[0]).toMatchObject({ extensions: { code: 'TOO_LARGE' } });
      expect(answer.errors?.[0].message).toContain('related(first: 10)');
    }
    // Nothing was subscribed, so a write costs what it always does.
    expect((await server.ok(COMMENT_ON_TASK, { taskId, body: 'the write' })).addComment.id).toBeTruthy();
  }, 600_000);

  it('holds many subscriptions on one task without a MaxListenersExceededWarning', async () => {
    const { task } = await createTask(server, ['Watched by many'], { domain: 'bounded/many' });
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const many = Array.from({ length: 15 }, () => held(subscribe(server.url, 'subscription($id: ID!) { taskChanged(id: $id) { action } }', { id: task.id })));
      for (const live of many) await whenHeld(live, () => server.ok(COMMENT_ON_TASK, { taskId: task.id, body: 'poke' }));
      await new Promise((resolve) => setImmediate(resolve));
      await Promise.all(many.map((live) => live.close()));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning')).toEqual([]);
  }, 120_000);
});
