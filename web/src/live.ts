import { createClient, type Client } from 'graphql-ws';
import { useEffect, useRef, useState } from 'preact/hooks';
import { authorization, gql, needToken, token } from './api';
import { signal } from './signal';

/** Shown in the header: connecting, live, offline (retrying) or refused (the token was not accepted; no retry until a new one). */
export const liveStatus = signal<'live' | 'connecting' | 'offline' | 'refused'>('connecting');
/** Bumped on every (re)connect: every open view refetches, so nothing missed while offline stays missed. */
const reconnects = signal(0);

let client: Client | null = null;

/**
 * A ping goes out this often, and a socket whose pong has not come back this
 * long after is taken for dead. A half-open socket (the network gone, no FIN
 * or RST ever arriving) otherwise stays "open" for minutes: the page said
 * "● Live" 45 s into being offline. Together they bound the time to notice at
 * about 10 s.
 */
const PING_EVERY_MS = 5_000;
const PONG_WITHIN_MS = 5_000;

function liveClient(): Client {
  if (client) return client;
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`;
  let first = true;
  let socket: WebSocket | null = null;
  let pongDue: ReturnType<typeof setTimeout> | undefined;
  const made = createClient({
    url,
    connectionParams: () => {
      const auth = authorization();
      return auth ? { authorization: auth } : {};
    },
    lazy: false,
    keepAlive: PING_EVERY_MS,
    retryAttempts: Infinity,
    retryWait: async (retries) => new Promise((resolve) => setTimeout(resolve, Math.min(500 * 2 ** retries, 5000))),
    shouldRetry: (event) => (event as CloseEvent)?.code !== 4401,
    on: {
      connecting: () => liveStatus.set('connecting'),
      connected: (opened) => {
        socket = opened as WebSocket;
        liveStatus.set('live');
        if (!first) reconnects.set(reconnects.get() + 1);
        first = false;
      },
      ping: (received) => {
        if (received) return;
        clearTimeout(pongDue);
        pongDue = setTimeout(() => {
          // terminate() reports the close at once and retries (a half-open socket's close may take the browser minutes to report).
          if (socket?.readyState === WebSocket.OPEN) made.terminate();
        }, PONG_WITHIN_MS);
      },
      pong: (received) => { if (received) clearTimeout(pongDue); },
      closed: (event) => {
        clearTimeout(pongDue);
        const refused = (event as CloseEvent)?.code === 4401;
        liveStatus.set(refused ? 'refused' : 'offline');
        if (refused) needToken.set(true);
      },
    },
  });
  client = made;
  return made;
}

/** A new token: reconnect with it. */
token.subscribe(() => {
  const old = client;
  client = null;
  void old?.dispose();
  liveClient();
});

/** Calls onChange for each event of the subscription while the view is open. */
export function useSubscription<T = unknown>(query: string | null, variables: Record<string, unknown>, onChange: (data: T) => void): void {
  const handler = useRef(onChange);
  handler.current = onChange;
  const key = JSON.stringify(variables);
  useEffect(() => {
    if (!query) return;
    return liveClient().subscribe({ query, variables }, {
      next: (result) => handler.current(result.data as T),
      error: () => undefined,
      complete: () => undefined,
    });
  }, [query, key]);
}

/** Calls back after each reconnect, so a view rereads what it may have missed. */
export function onReconnect(callback: () => void): () => void {
  return reconnects.subscribe(callback);
}

export interface Loaded<T> {
  data: T | null;
  error: string | null;
  reload(): void;
}

/**
 * A view's query: loaded on open, again on each change the view subscribes
 * to (a burst of changes is one refetch), and again after a reconnect. No
 * client-side cache: every view asks for exactly what it shows, and a
 * refetch of one view is a single request.
 */
export function useQuery<T = unknown>(query: string, variables: Record<string, unknown>, live?: { query: string; variables: Record<string, unknown> }): Loaded<T> {
  const [state, setState] = useState<{ data: T | null; error: string | null }>({ data: null, error: null });
  const [tick, setTick] = useState(0);
  const key = JSON.stringify(variables);
  const timer = useRef<number | undefined>(undefined);
  const reload = () => {
    clearTimeout(timer.current);
    timer.current = window.setTimeout(() => setTick((n) => n + 1), 50);
  };
  useEffect(() => reconnects.subscribe(reload), []);
  useEffect(() => token.subscribe(reload), []);
  useEffect(() => {
    let current = true;
    gql<T>(query, variables).then(
      (data) => current && setState({ data, error: null }),
      (error: Error) => current && setState((old) => ({ data: old.data, error: error.message })),
    );
    return () => {
      current = false;
    };
  }, [query, key, tick]);
  useEffect(() => setState({ data: null, error: null }), [query, key]);
  useSubscription(live?.query ?? null, live?.variables ?? {}, reload);
  liveClient();
  return { ...state, reload };
}
