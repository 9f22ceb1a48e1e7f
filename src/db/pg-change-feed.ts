import { EventEmitter } from 'node:events';
import pg from 'pg';
import type { Logger } from 'pino';
import type { ChangeFeed } from '../services/kernel/change-feed.js';
import type { ChangeBus, ChangeEvent } from '../services/kernel/changes.js';

/** The channel every taskbase process on one database shares. */
export const CHANGE_CHANNEL = 'taskbase_changes';
/** After a dropped connection, try again this often. */
const RECONNECT_MS = 1000;
/** NOTIFY payloads must stay under 8000 bytes; an event is ~200. */
const MAX_PAYLOAD = 7900;

const ENTITIES = new Set<ChangeEvent['entity']>(['TASK', 'NOTE', 'SESSION', 'SETTINGS']);

/** A NOTIFY payload back into an event; anything else on the channel is ignored. */
export function parseChange(payload: string | undefined): ChangeEvent | null {
  try {
    const value = JSON.parse(payload ?? '') as Partial<ChangeEvent>;
    if (!value || !ENTITIES.has(value.entity as ChangeEvent['entity']) || typeof value.id !== 'string' || typeof value.action !== 'string') return null;
    const event: ChangeEvent = { entity: value.entity!, id: value.id, action: value.action, sessionId: typeof value.sessionId === 'string' ? value.sessionId : null, at: String(value.at) };
    const memory = value.memory;
    if (memory && (memory.kind === 'TASK' || memory.kind === 'NOTE') && (memory.domain === null || typeof memory.domain === 'string')) {
      event.memory = { kind: memory.kind, domain: memory.domain };
    }
    return event;
  } catch {
    return null;
  }
}

/**
 * Several server processes on one PostgreSQL database: each publishes its
 * own committed changes with NOTIFY and hears everyone's (its own included)
 * with LISTEN on one dedicated connection, so a dashboard held on one server
 * sees a change made through another. A dropped connection reconnects; the
 * dashboard refetches on its own reconnect, so nothing is replayed here.
 */
export class PostgresChangeFeed implements ChangeFeed {
  private readonly emitter = new EventEmitter();
  private client: pg.Client | null = null;
  private connecting: Promise<void> | null = null;
  private closed = false;
  private readonly unsubscribeBus: () => void;

  constructor(
    private readonly url: string,
    bus: ChangeBus,
    private readonly logger: Logger,
  ) {
    this.emitter.setMaxListeners(0);
    this.unsubscribeBus = bus.subscribe((event) => void this.notify(event));
  }

  subscribe(listener: (event: ChangeEvent) => void): () => void {
    this.emitter.on('change', listener);
    return () => this.emitter.off('change', listener);
  }

  ready(): Promise<void> {
    this.connecting ??= this.connect();
    return this.connecting;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.unsubscribeBus();
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url });
    client.on('notification', (message) => {
      if (message.channel !== CHANGE_CHANNEL) return;
      const event = parseChange(message.payload);
      if (event) this.emitter.emit('change', event);
    });
    client.on('error', (error) => {
      this.logger.warn({ err: error }, 'change feed connection lost; reconnecting');
      this.dropped(client);
    });
    client.on('end', () => this.dropped(client));
    await client.connect();
    await client.query(`LISTEN ${CHANGE_CHANNEL}`);
    if (this.closed) {
      await client.end();
      return;
    }
    this.client = client;
  }

  private dropped(client: pg.Client): void {
    if (this.client !== client || this.closed) return;
    this.client = null;
    const retry = () => {
      if (this.closed) return;
      this.connect().catch((error) => {
        this.logger.warn({ err: error }, 'change feed could not reconnect; trying again');
        setTimeout(retry, RECONNECT_MS).unref();
      });
    };
    setTimeout(retry, RECONNECT_MS).unref();
  }

  private async notify(event: ChangeEvent): Promise<void> {
    const payload = JSON.stringify(event);
    if (payload.length > MAX_PAYLOAD) return;
    try {
      await this.ready();
      await this.client?.query('SELECT pg_notify($1, $2)', [CHANGE_CHANNEL, payload]);
    } catch (error) {
      // The change is committed; only the live view misses it, and it refetches on reconnect.
      this.logger.warn({ err: error }, 'could not publish a change');
    }
  }
}
