import { mayFreeWork } from '../../domain/claims.js';
import { inScope } from '../../domain/domains.js';
import type { ChangeFeed } from '../kernel/changes/change-feed.js';
import type { ChangeEvent } from '../kernel/changes/change-events.js';

/**
 * What a waiting claimNext (GraphQL waitSeconds, MCP task_next's
 * wait_seconds) holds on: a change to some task of a domain that may have
 * made an item ready (domain/claims.ts mayFreeWork), heard from the server's
 * change feed, which reads the change log and so hears every writer on every
 * server (change-feed.ts). A watch is opened before the queue is read, so a
 * change committed between the read and the wait still wakes it.
 */
export interface WorkWakeups {
  watch(domain: string): WorkWatch;
}

export interface WorkWatch {
  /** Resolves true once a change in the domain woke this watch since it opened (at once if one already did), false after `ms`. */
  changed(ms: number): Promise<boolean>;
  /** Whether a change woke this watch. */
  readonly woken: boolean;
  /**
   * The wake-up this watch had went to a claim, or was not used: the next
   * waiter in the domain is woken, as more may be ready (a settle can free
   * several items; one waiter is woken per change).
   */
  passOn(): void;
  close(): void;
}

class FeedWatch implements WorkWatch {
  woken = false;
  private wake: (() => void) | null = null;

  constructor(readonly domain: string, private readonly wakeups: FeedWorkWakeups) {}

  fire(): void {
    this.woken = true;
    this.wake?.();
  }

  changed(ms: number): Promise<boolean> {
    if (this.woken) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => { this.wake = null; resolve(false); }, Math.max(0, ms));
      this.wake = () => { clearTimeout(timer); this.wake = null; resolve(true); };
    });
  }

  passOn(): void {
    this.wakeups.wakeOne(this.domain, this, { passing: true });
  }

  close(): void {
    this.wake?.();
    this.wakeups.closed(this);
  }
}

/**
 * The wake-ups of one server, over its change feed. A change wakes one
 * waiter of its domain, the longest waiting, not all of them: with many
 * agents waiting, each change would otherwise send every one of them to the
 * database for the one item it freed. A waiter that claims passes the
 * wake-up on (WorkWatch.passOn), so several items freed at once are taken
 * one after another. The feed reads the changes' rows only while a watch is
 * open (its `wanted`), so a server where no agent waits pays nothing for
 * this.
 */
export class FeedWorkWakeups implements WorkWakeups {
  /** Open watches, longest waiting first. */
  private readonly watches = new Set<FeedWatch>();
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly feed: ChangeFeed) {}

  watch(domain: string): WorkWatch {
    this.unsubscribe ??= this.feed.subscribe((event) => this.heard(event), () => this.watches.size > 0);
    const watch = new FeedWatch(domain, this);
    this.watches.add(watch);
    return watch;
  }

  close(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    for (const watch of this.watches) watch.close();
  }

  /**
   * Wakes the longest-waiting watch not yet woken whose scope holds `domain` (undefined: any), other than `except`.
   * `passing`: a waiter's wake-up passed on, `domain` its scope: a watch under that scope may have work too (a waiter
   * on acme took an acme/billing item; more of billing's may be free), so scopes that overlap either way.
   */
  wakeOne(domain: string | undefined, except?: FeedWatch, { passing = false } = {}): void {
    const overlaps = (scope: string) => domain === undefined || inScope(domain, scope) || (passing && inScope(scope, domain));
    for (const watch of this.watches) {
      if (watch === except || watch.woken || !overlaps(watch.domain)) continue;
      watch.fire();
      return;
    }
  }

  closed(watch: FeedWatch): void {
    this.watches.delete(watch);
  }

  private heard(event: ChangeEvent): void {
    if (event.entity !== 'TASK' || !mayFreeWork(event.action)) return;
    const domain = event.memory?.domain;
    // A plan's task has no domain and is never work for claimNext; a change that does not say its domain wakes a waiter anywhere.
    if (domain === null) return;
    this.wakeOne(domain);
  }
}

/** Without a change feed (`taskbase mcp` on its own database file): look again every second. */
export const POLLED_WAKEUPS: WorkWakeups = {
  watch: () => ({
    woken: false,
    changed: (ms: number) => new Promise<boolean>((resolve) => setTimeout(() => resolve(true), Math.max(0, Math.min(ms, 1_000)))),
    passOn: () => undefined,
    close: () => undefined,
  }),
};
