import pg from 'pg';
import type { Logger } from 'pino';
import type { Wakeups } from './change-feed.js';

import { CHANGE_CHANNEL, listenerName } from '../../../db/change-channel.js';

/** After a dropped connection, try again this often. */
const RECONNECT_MS = 1000;

/**
 * The wake-ups of a server's change feed on PostgreSQL: LISTEN on one
 * dedicated connection. Every writer's transaction NOTIFYs at commit (see
 * services/kernel/changes/change-log.ts), so each commit anywhere wakes every server,
 * which then reads the log by id; the notification's payload is the tag of
 * the writer that sent it (CommitSignal), handed to the feed. A dropped connection reconnects, and wakes
 * the feed once it listens again: the feed reads from the last id it
 * delivered, so what was committed meanwhile is delivered then, not lost.
 */
export class PostgresWakeups implements Wakeups {
  private client: pg.Client | null = null;
  private closed = false;
  private wake: (tag?: string) => void = () => undefined;

  constructor(
    private readonly url: string,
    private readonly logger: Logger,
  ) {}

  async start(wake: (tag?: string) => void): Promise<void> {
    this.wake = wake;
    await this.connect();
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, application_name: listenerName() });
    client.on('notification', (message) => {
      if (message.channel === CHANGE_CHANNEL) this.wake(message.payload);
    });
    client.on('error', (error) => {
      this.logger.warn({ err: error }, 'change feed connection lost; reconnecting');
      this.dropped(client);
    });
    client.on('end', () => this.dropped(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGE_CHANNEL}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
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
      this.connect().then(
        () => {
          this.logger.info('change feed connection restored; reading the changes committed meanwhile');
          this.wake();
        },
        (error) => {
          this.logger.warn({ err: error }, 'change feed could not reconnect; trying again');
          setTimeout(retry, RECONNECT_MS).unref();
        },
      );
    };
    setTimeout(retry, RECONNECT_MS).unref();
  }
}
