/**
 * Subscriptions as any client holds them: a graphql-ws client over a real
 * WebSocket to the server's /graphql, and the documents the tests share.
 */
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';

export const TASK_CHANGED = `subscription($id: ID!) { taskChanged(id: $id) {
  taskId action at madeBy task { id version items(first: 200) { nodes { id text state } } }
} }`;
export const DOMAIN_CHANGED = 'subscription($under: String) { domainChanged(under: $under) { memoryId kind domain action memory { id title } } }';
export const SESSION_CHANGED = `subscription($id: ID) { sessionChanged(id: $id) {
  sessionId parentId action madeBy session { id statusLine plan { items(first: 200) { nodes { text state } } } }
} }`;
export const SETTINGS_CHANGED = 'subscription { reminderSettingsChanged { enabled intervalMinutes } }';

export interface Live<T = any> {
  /** The next event (or the error or close that ended the subscription), failing after `ms`. */
  next(ms?: number): Promise<T>;
  /** The next event that passes `test`, skipping others. */
  until(test: (value: T) => boolean, ms?: number): Promise<T>;
  /** Resolves with the close code once the server closed the socket. */
  closed: Promise<{ code: number; reason: string }>;
  close(): Promise<void>;
}

/** ws://… for the server whose GraphQL endpoint is `httpUrl` (…/graphql). */
export function wsUrl(httpUrl: string): string {
  return httpUrl.replace(/^http/, 'ws');
}

export function subscribe<T = any>(httpUrl: string, query: string, variables: Record<string, unknown> = {}, options: { authorization?: string } = {}): Live<T> {
  const queue: T[] = [];
  const waiters: ((value: T | Error) => void)[] = [];
  let failure: Error | null = null;
  let resolveClosed!: (value: { code: number; reason: string }) => void;
  const closed = new Promise<{ code: number; reason: string }>((resolve) => { resolveClosed = resolve; });
  const client: Client = createClient({
    url: wsUrl(httpUrl),
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    connectionParams: options.authorization ? { authorization: options.authorization } : undefined,
    on: { closed: (event) => resolveClosed({ code: (event as { code: number }).code, reason: String((event as { reason: unknown }).reason) }) },
  });
  const push = (value: T | Error) => {
    const waiter = waiters.shift();
    if (waiter) waiter(value);
    else if (value instanceof Error) failure = value;
    else queue.push(value);
  };
  client.subscribe<T>({ query, variables }, {
    next: (result) => push(result.errors ? new Error(JSON.stringify(result.errors)) : (result.data as T)),
    error: (error) => push(error instanceof Error ? error : new Error(JSON.stringify(error))),
    complete: () => undefined,
  });
  const next = (ms = 5000) =>
    new Promise<T>((resolve, reject) => {
      if (queue.length) return resolve(queue.shift()!);
      if (failure) return reject(failure);
      const waiter = (value: T | Error) => {
        clearTimeout(timer);
        if (value instanceof Error) reject(value);
        else resolve(value);
      };
      // A waiter that timed out leaves the line, so the next event goes to whoever waits now.
      const timer = setTimeout(() => {
        waiters.splice(waiters.indexOf(waiter), 1);
        reject(new Error(`no event within ${ms} ms`));
      }, ms);
      waiters.push(waiter);
    });
  return {
    next,
    closed,
    until: async (test, ms = 5000) => {
      const deadline = Date.now() + ms;
      for (;;) {
        const value = await next(Math.max(1, deadline - Date.now()));
        if (test(value)) return value;
      }
    },
    close: async () => {
      await client.dispose();
    },
  };
}

const isTimeout = (error: unknown) => error instanceof Error && error.message.startsWith('no event');

/**
 * A subscription is held once the server has subscribed it, which no
 * message acknowledges: poke (a change the subscription hears) until one
 * arrives, then drain what the pokes sent. After this, every change is heard.
 */
export async function whenHeld(live: Live, poke: () => Promise<unknown>): Promise<void> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    await poke();
    const heard = await live.next(200).then(() => true, (error) => {
      if (!isTimeout(error)) throw error;
      return false;
    });
    if (!heard) continue;
    for (;;) {
      const more = await live.next(300).then(() => true, (error) => {
        if (!isTimeout(error)) throw error;
        return false;
      });
      if (!more) return;
    }
  }
  throw new Error('the subscription never heard a change');
}
