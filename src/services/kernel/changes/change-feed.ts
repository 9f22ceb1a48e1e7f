import { EventEmitter } from 'node:events';
import type { EntityManager } from 'typeorm';
import { newestChangeId, readChanges } from './change-log.js';
import type { ChangeEvent, CommitSignal } from './change-events.js';
import { CoalescedPasses } from '../coalesced.js';

/**
 * Every committed change a server should hear about, whichever process made
 * it (this server, another server, `taskbase mcp`, a CLI command), once each
 * and in log order. The subscriptions read this.
 */
export interface ChangeFeed {
  /**
   * Each change, in log order. `wanted` says whether the listener needs the
   * changes now (the subscription bridge: only while a subscription is open);
   * while no listener wants them, the feed reads where the log ends, not its
   * rows.
   */
  subscribe(listener: (event: ChangeEvent) => void, wanted?: () => boolean): () => void;
  /** "The log has grown": called after each read that found new changes, whether or not their rows were read (the webhook dispatcher). */
  onGrown(listener: () => void): () => void;
  /** Resolves once the feed hears changes (on PostgreSQL, once LISTEN is on). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/** Something that says the log may have grown: PostgreSQL's LISTEN connection (pg-change-feed.ts). */
export interface Wakeups {
  /**
   * Resolves once listening; calls `wake` on each notification, with its
   * writer's tag (CommitSignal), and with none after a dropped connection
   * is back.
   */
  start(wake: (tag?: string) => void): Promise<void>;
  close(): Promise<void>;
}

/**
 * How often the feed looks at the log when nothing woke it. SQLite has no
 * notifications, so another process's change is found by this poll: one
 * index seek past the last id read, four times a second. On PostgreSQL
 * NOTIFY wakes the feed; the poll only covers a wake-up that never came.
 */
export const POLL_MS = { sqlite: 250, postgres: 5_000 } as const;
/**
 * How soon a feed that nobody wants rows from reads after another process's
 * notification. Such a read only learns where the log ends (for the webhook
 * dispatcher's wake-up): every process moves its own changes into the log
 * before it answers (Writer), and readers read the log, so nothing waits for
 * it. Reading at each of another server's commits cost every server a
 * statement per commit of every other: CPU per operation rose with servers.
 */
export const IDLE_READ_MS = 250;
/** Changes read per statement; a feed that is behind reads batch after batch until it is not. */
const BATCH = 500;

interface LogFeedOptions {
  pollMs: number;
  wakeups?: Wakeups | null;
  /** A read failed (the database is away); the next wake-up or poll tries again from the same id. */
  onError(error: unknown): void;
  /**
   * Whether a commit knows its log ids (SQLite: one writer at a time appends
   * to the log). Then this process's own commit tells where the log ends;
   * otherwise (PostgreSQL: ids are given as the change queue is moved into
   * the log, change-log.ts) the end is read.
   */
  idsKnownAtCommit: boolean;
}

/**
 * Tails the change log by id. It starts at the newest change (what was
 * committed before the server started is not replayed), and reads when woken
 * by this process's own commit, by a notification, or by the poll; reads
 * never overlap, and a wake-up during a read reads again after it. Only the
 * log delivers, and each id once, so no change is heard twice.
 */
export class LogChangeFeed implements ChangeFeed {
  private readonly emitter = new EventEmitter();
  /** Each change's listeners, with whether each wants the changes' rows now. */
  private readonly listeners = new Map<(event: ChangeEvent) => void, () => boolean>();
  private lastId = 0;
  /** The newest log id this process's own commits appended (CommitSignal): where the log ends, unless another process wrote since. */
  private ownEnd = 0;
  /** Whether anything other than this process's own commits may have grown the log since its end was last read. */
  private othersMayHaveWritten = true;
  private started: Promise<void> | null = null;
  private live = false;
  private closed = false;
  private readonly reads = new CoalescedPasses(() => this.drain(), () => this.live && !this.closed);
  private timer: NodeJS.Timeout | null = null;
  /** A read after other processes' notifications, held while nobody wants rows (IDLE_READ_MS). */
  private idleRead: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly tail: () => Promise<EntityManager>,
    private readonly commits: CommitSignal,
    private readonly options: LogFeedOptions,
  ) {
    this.emitter.setMaxListeners(0);
  }

  subscribe(listener: (event: ChangeEvent) => void, wanted: () => boolean = () => true): () => void {
    this.listeners.set(listener, wanted);
    return () => this.listeners.delete(listener);
  }

  onGrown(listener: () => void): () => void {
    this.emitter.on('grown', listener);
    return () => this.emitter.off('grown', listener);
  }

  ready(): Promise<void> {
    this.started ??= this.start();
    return this.started;
  }

  /**
   * Reads the log now (coalesced with a read under way): something, maybe
   * another process, may have grown it. Resolves once a read begun after
   * this call has ended.
   */
  wake(): Promise<void> {
    this.othersMayHaveWritten = true;
    return this.reads.request();
  }

  /**
   * This process committed, and its log ended at `newestId` (null: not
   * known, read it). Resolves once a read begun after the commit has ended:
   * on PostgreSQL that read moved the commit's changes from the queue into
   * the log, where every reader on every server finds them (the Writer
   * waits for it before it answers).
   */
  private ownCommit(newestId: number | null): Promise<void> {
    if (newestId === null || !this.options.idsKnownAtCommit) return this.wake();
    this.ownEnd = Math.max(this.ownEnd, newestId);
    return this.reads.request();
  }

  /**
   * Another process committed (its notification), or the listening
   * connection is back. Read now when someone wants the changes' rows (a
   * subscription, an agent waiting for work); else within IDLE_READ_MS,
   * one read for every notification meanwhile.
   */
  private othersWrote(): void {
    if (this.closed) return;
    if (this.rowsWanted()) {
      void this.wake();
      return;
    }
    this.othersMayHaveWritten = true;
    this.idleRead ??= setTimeout(() => {
      this.idleRead = null;
      void this.wake();
    }, IDLE_READ_MS);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    if (this.idleRead) clearTimeout(this.idleRead);
    this.unsubscribe?.();
    await this.options.wakeups?.close();
    await this.reads.settled();
  }

  private async start(): Promise<void> {
    // Listening first, then the newest id: a change committed in between is after that id, and the next read finds it.
    // This process's own notifications are already heard from its CommitSignal, with the ids they appended.
    await this.options.wakeups?.start((tag) => { if (tag === undefined || tag !== this.commits.tag) this.othersWrote(); });
    this.lastId = await newestChangeId(await this.tail());
    this.live = true;
    this.unsubscribe = this.commits.onCommit((newestId) => this.ownCommit(newestId));
    this.timer = setInterval(() => void this.wake(), this.options.pollMs);
    this.timer.unref();
  }

  private rowsWanted(): boolean {
    for (const wanted of this.listeners.values()) if (wanted()) return true;
    return false;
  }

  /**
   * Reads what the log gained since the last read. With nobody wanting the
   * changes themselves (no subscription open), only where the log ends is
   * read: every write wakes the feed, and reading and mapping its rows for
   * nobody was 7-10 % of a write's CPU (BENCHMARKS.md). When only this
   * process's own commits woke it, even that is known without a statement:
   * each commit says the newest id it appended (the `MAX("id")` per write
   * was 2.4-3 % of a write's CPU). A poll, a notification from another
   * process or a commit that did not say reads the log's end again.
   */
  private async drain(): Promise<void> {
    const start = this.lastId;
    try {
      const manager = await this.tail();
      for (;;) {
        if (!this.rowsWanted()) {
          if (!this.othersMayHaveWritten) {
            this.lastId = Math.max(this.lastId, this.ownEnd);
            break;
          }
          // Cleared before the read: a wake-up from elsewhere during it sets it again, and the pass after this one reads again.
          this.othersMayHaveWritten = false;
          const newest = await newestChangeId(manager);
          // A subscription opened during that read must hear what was committed after it opened: read the rows from
          // where this read began, which may deliver a few changes from just before it (a look again, never a loss).
          if (this.rowsWanted()) continue;
          this.lastId = Math.max(this.lastId, newest, this.ownEnd);
          break;
        }
        this.othersMayHaveWritten = false;
        const events = await readChanges(manager, this.lastId, BATCH);
        for (const event of events) {
          if (this.closed) return;
          this.lastId = event.logId!;
          for (const listener of [...this.listeners.keys()]) listener(event);
        }
        if (events.length < BATCH) break;
      }
    } catch (error) {
      if (!this.closed) this.options.onError(error);
    }
    if (this.lastId > start && !this.closed) this.emitter.emit('grown');
  }
}
