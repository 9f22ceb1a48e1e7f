import { LOOPBACK_CLIENT } from '../../http/connection-limits.js';
import type { McpSessionLimits } from './session-limits.js';

/** Who a session counts against: its bearer token, or with auth off the client it came from. */
export interface SessionOwner {
  /** The token's principal, or with auth off the client (connection-limits.ts oneClientPerMachine: every loopback address is one). */
  key: string;
  /** With auth off the cap is per client, and the refusal says so. */
  kind: 'token' | 'address';
}

/** Why an initialize is refused: 429 for one owner's cap, 503 for the server's; the message says what to do. */
export interface SessionRefusal {
  status: 429 | 503;
  message: string;
  open: number;
  limit: number;
  /** Seconds to wait before trying again, for Retry-After. */
  retryAfterSeconds: number;
}

/** A slot held from the initialize on; released once, when the session ends (or its initialize fails). */
export interface SessionSlot {
  release(): void;
}

interface Entry<T> {
  value: T;
  owner: string;
  slot: SessionSlot;
  /** When a request naming it last came or ended (ms). */
  seen: number;
  /** When a call naming it last came or ended, else when it opened (ms): the least recently used has the smallest. */
  called: number;
  /** Requests naming it still open (a GET stream the client listens on, a long call): it does not expire while any is. */
  busy: number;
  /** Of those, the calls (any request but a GET stream): it is not closed to make room while any is. */
  calls: number;
}

/** Why the table closed a session itself. */
export type ClosedBecause = 'idle' | 'evicted';

/**
 * The open MCP sessions over HTTP, by mcp-session-id, with their caps and
 * idle expiry. A slot is taken before the session is built, so initializes
 * sent together cannot pass the cap between them.
 *
 * At a cap the newcomer is let in and an older session is closed for it: at
 * the owner's cap the owner's least recently used session that is not in
 * the middle of a call, at the server's cap the server's. Clients that never
 * end their sessions (the MCP Inspector, `claude mcp list`, mcp-remote) then
 * cannot lock a new agent out, and a caller that floods only churns its own
 * sessions. Only when every session that counts is in a call (or still
 * initializing) is the initialize refused.
 *
 * A session expires when no request naming it is open and none came for the
 * idle time; the sweeper runs at least every 30 s (and at least twice per
 * idle time), so an idle session is closed within that of its deadline.
 */
export class McpSessionTable<T> {
  private readonly entries = new Map<string, Entry<T>>();
  /** Slots held per owner key (open sessions and initializes under way). */
  private readonly held = new Map<string, number>();
  private total = 0;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly limits: McpSessionLimits,
    /** Closes a session the table dropped itself (idle, or evicted to make room); remove() is called for it already. */
    private readonly onClosed: (value: T, because: ClosedBecause) => void,
    private readonly now: () => number = Date.now,
  ) {
    this.sweeper = setInterval(() => this.sweep(), Math.max(50, Math.min(30_000, Math.floor(limits.idleMs / 2))));
    this.sweeper.unref();
  }

  /** A slot for a new session of this owner, after closing an older session at a full cap; the refusal when none can be closed. */
  reserve(owner: SessionOwner): SessionSlot | SessionRefusal {
    const mine = this.held.get(owner.key) ?? 0;
    // The owner's own cap first: its own sessions make room before anyone else's.
    if (mine >= this.limits.maxSessionsPerToken && !this.evictLeastRecentlyUsed(owner.key)) {
      return this.refusal(429, mine, this.limits.maxSessionsPerToken, owner);
    }
    if (this.total >= this.limits.maxSessions && !this.evictLeastRecentlyUsed(null)) {
      return this.refusal(503, this.total, this.limits.maxSessions, owner);
    }
    const held = this.held.get(owner.key) ?? 0;
    this.held.set(owner.key, held + 1);
    this.total += 1;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.total -= 1;
        const left = (this.held.get(owner.key) ?? 1) - 1;
        if (left > 0) this.held.set(owner.key, left);
        else this.held.delete(owner.key);
      },
    };
  }

  /** The session initialized under this slot is open under its id. */
  add(id: string, value: T, owner: SessionOwner, slot: SessionSlot): void {
    this.entries.set(id, { value, owner: owner.key, slot, seen: this.now(), called: this.now(), busy: 0, calls: 0 });
  }

  /**
   * The open session with this id, for a request naming it (undefined when
   * none is open): it does not expire until done() is called, when the
   * request ends, and its idle time counts from then. A call (anything but
   * the GET stream a client listens on) also keeps it from being closed to
   * make room; a client that only listens is not using its session.
   */
  use(id: string, kind: 'call' | 'stream'): { value: T; done(): void } | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    const call = kind === 'call' ? 1 : 0;
    entry.seen = this.now();
    if (call) entry.called = entry.seen;
    entry.busy += 1;
    entry.calls += call;
    let ended = false;
    return {
      value: entry.value,
      done: () => {
        if (ended) return;
        ended = true;
        entry.busy -= 1;
        entry.calls -= call;
        entry.seen = this.now();
        if (call) entry.called = entry.seen;
      },
    };
  }

  /** The session ended (DELETE, closed, expired): its slot is free. */
  remove(id: string): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.entries.delete(id);
    entry.slot.release();
  }

  get size(): number {
    return this.entries.size;
  }

  /** Every open session, for shutdown; the table stops sweeping. */
  drain(): T[] {
    clearInterval(this.sweeper);
    const values = [...this.entries.values()].map((entry) => entry.value);
    for (const id of [...this.entries.keys()]) this.remove(id);
    return values;
  }

  private sweep(): void {
    const cutoff = this.now() - this.limits.idleMs;
    for (const [id, entry] of this.entries) {
      if (entry.busy > 0 || entry.seen >= cutoff) continue;
      this.remove(id);
      this.onClosed(entry.value, 'idle');
    }
  }

  /** Closes the least recently used session of this owner (of any owner when null) that is in no call; false when there is none. */
  private evictLeastRecentlyUsed(owner: string | null): boolean {
    let victim: [string, Entry<T>] | null = null;
    for (const [id, entry] of this.entries) {
      if (entry.calls > 0 || (owner !== null && entry.owner !== owner)) continue;
      if (!victim || entry.called < victim[1].called) victim = [id, entry];
    }
    if (!victim) return false;
    this.remove(victim[0]);
    this.onClosed(victim[1].value, 'evicted');
    return true;
  }

  private refusal(status: 429 | 503, open: number, limit: number, owner: SessionOwner): SessionRefusal {
    const remedy =
      'A session that is not in the middle of a call is closed to make room for a new one, so retry in a moment (Retry-After), ' +
      'reuse an open session by sending its mcp-session-id, or end the sessions you no longer use (DELETE /mcp with their mcp-session-id).';
    const whose =
      status === 503
        ? `The server has ${open} MCP sessions open, the most it holds (TASKBASE_MCP_MAX_SESSIONS=${limit}), and each is in the middle of a call or starting.`
        : owner.kind === 'token'
          ? `This bearer token has ${open} MCP sessions open, the most one token may hold (TASKBASE_MCP_MAX_SESSIONS_PER_TOKEN=${limit}), and each is in the middle of a call or starting.`
          : `${owner.key === LOOPBACK_CLIENT ? 'This machine (every loopback address counts as one client)' : `This client address (${owner.key})`} ` +
            `has ${open} MCP sessions open, the most one client may hold while auth is off ` +
            `(TASKBASE_MCP_MAX_SESSIONS_PER_TOKEN=${limit} counts per client when TASKBASE_TOKENS is unset), and each is in the middle of a call or starting.`;
    return { status, message: `${whose} ${remedy}`, open, limit, retryAfterSeconds: 1 };
  }
}

export function isRefusal(value: SessionSlot | SessionRefusal): value is SessionRefusal {
  return 'status' in value;
}
