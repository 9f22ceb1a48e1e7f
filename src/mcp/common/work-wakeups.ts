import { inScope } from '../../domain/domains.js';
import type { ChangeFeed } from '../../services/kernel/changes/change-feed.js';
import type { ChangeEvent } from '../../services/kernel/changes/change-events.js';

/**
 * What task_next's wait_seconds holds on: a change to some task of a domain
 * (an item added, settled or released, a claim taken or ended), heard from
 * the server's change feed, which reads the change log and so hears every
 * writer on every server (change-feed.ts). A watch is opened before the
 * queue is read, so a change committed between the read and the wait still
 * wakes it.
 */
export interface WorkWakeups {
  watch(domain: string): WorkWatch;
}

export interface WorkWatch {
  /** Resolves true once a change in the domain was heard since the watch opened (at once if one already was), false after `ms`. */
  changed(ms: number): Promise<boolean>;
  close(): void;
}

class FeedWatch implements WorkWatch {
  private heard = false;
  private wake: (() => void) | null = null;

  constructor(readonly domain: string, private readonly done: (watch: FeedWatch) => void) {}

  fire(): void {
    this.heard = true;
    this.wake?.();
  }

  changed(ms: number): Promise<boolean> {
    if (this.heard) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => { this.wake = null; resolve(false); }, Math.max(0, ms));
      this.wake = () => { clearTimeout(timer); this.wake = null; resolve(true); };
    });
  }

  close(): void {
    this.wake?.();
    this.done(this);
  }
}

/**
 * The wake-ups of one server's MCP tools, over its change feed. The feed
 * reads the changes' rows only while a watch is open (its `wanted`), so a
 * server where no agent waits pays nothing for this.
 */
export class FeedWorkWakeups implements WorkWakeups {
  private readonly watches = new Set<FeedWatch>();
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly feed: ChangeFeed) {}

  watch(domain: string): WorkWatch {
    this.unsubscribe ??= this.feed.subscribe((event) => this.heard(event), () => this.watches.size > 0);
    const watch = new FeedWatch(domain, (closed) => this.watches.delete(closed));
    this.watches.add(watch);
    return watch;
  }

  close(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    for (const watch of this.watches) watch.close();
  }

  private heard(event: ChangeEvent): void {
    if (event.entity !== 'TASK') return;
    const domain = event.memory?.domain;
    // A plan's task has no domain and is never work for task_next; a change that does not say its domain wakes everyone.
    if (domain === null) return;
    for (const watch of this.watches) if (domain === undefined || inScope(domain, watch.domain)) watch.fire();
  }
}

/** Without a change feed (`taskbase mcp` on its own database file): look again every second. */
export const POLLED_WAKEUPS: WorkWakeups = {
  watch: () => ({
    changed: (ms: number) => new Promise<boolean>((resolve) => setTimeout(() => resolve(true), Math.max(0, Math.min(ms, 1_000)))),
    close: () => undefined,
  }),
};
