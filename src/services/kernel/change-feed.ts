import type { ChangeBus, ChangeEvent } from './changes.js';

/**
 * Every committed change a server should hear about: its own, and on
 * PostgreSQL those of every other server process on the same database. The
 * subscriptions read this, never the bus, so one path carries both.
 */
export interface ChangeFeed {
  subscribe(listener: (event: ChangeEvent) => void): () => void;
  /** Resolves once the feed hears changes (on PostgreSQL, once LISTEN is on). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/** One process (SQLite): the feed is the bus itself. */
export class LocalChangeFeed implements ChangeFeed {
  constructor(private readonly bus: ChangeBus) {}

  subscribe(listener: (event: ChangeEvent) => void): () => void {
    return this.bus.subscribe(listener);
  }

  async ready(): Promise<void> {}

  async close(): Promise<void> {}
}
