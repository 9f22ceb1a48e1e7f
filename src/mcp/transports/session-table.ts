import { idleText, type McpSessionLimits } from './session-limits.js';

/** Who a session counts against: its bearer token, or with auth off the client address it came from. */
export interface SessionOwner {
  /** The token's principal, or the client address with auth off. */
  key: string;
  /** With auth off the cap is per client address, and the refusal says so. */
  kind: 'token' | 'address';
}

/** Why an initialize is refused: 429 for one owner's cap, 503 for the server's; the message says what to do. */
export interface SessionRefusal {
  status: 429 | 503;
  message: string;
  open: number;
  limit: number;
  /** Seconds until the owner's (or the server's) longest-idle session is closed, for Retry-After. */
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
  /** Requests naming it still open (a GET stream the client listens on, a long call): it is not idle while any is. */
  busy: number;
}

/**
 * The open MCP sessions over HTTP, by mcp-session-id, with their caps and
 * idle expiry. A slot is taken before the session is built, so initializes
 * sent together cannot pass the cap between them. A session is idle when no
 * request naming it is open and none came for the idle time; the sweeper
 * runs at least every 30 s (and at least twice per idle time), so an idle
 * session is closed within that of its deadline.
 */
export class McpSessionTable<T> {
  private readonly entries = new Map<string, Entry<T>>();
  /** Slots held per owner key (open sessions and initializes under way). */
  private readonly held = new Map<string, number>();
  private total = 0;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly limits: McpSessionLimits,
    private readonly onExpired: (value: T) => void,
    private readonly now: () => number = Date.now,
  ) {
    this.sweeper = setInterval(() => this.sweep(), Math.max(50, Math.min(30_000, Math.floor(limits.idleMs / 2))));
    this.sweeper.unref();
  }

  /** A slot for a new session of this owner, or the refusal when a cap is full. */
  reserve(owner: SessionOwner): SessionSlot | SessionRefusal {
    const mine = this.held.get(owner.key) ?? 0;
    // The owner's own cap first: when both are full, what the caller can do something about is its own sessions.
    if (mine >= this.limits.maxSessionsPerToken) return this.refusal(429, mine, this.limits.maxSessionsPerToken, owner.key, owner);
    if (this.total >= this.limits.maxSessions) return this.refusal(503, this.total, this.limits.maxSessions, null, owner);
    this.held.set(owner.key, mine + 1);
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
    this.entries.set(id, { value, owner: owner.key, slot, seen: this.now(), busy: 0 });
  }

  /**
   * The open session with this id, for a request naming it (undefined when
   * none is open): it is not idle until done() is called, when the request
   * ends, and its idle time counts from then.
   */
  use(id: string): { value: T; done(): void } | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    entry.seen = this.now();
    entry.busy += 1;
    let ended = false;
    return {
      value: entry.value,
      done: () => {
        if (ended) return;
        ended = true;
        entry.busy -= 1;
        entry.seen = this.now();
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
      this.onExpired(entry.value);
    }
  }

  private refusal(status: 429 | 503, open: number, limit: number, key: string | null, owner: SessionOwner): SessionRefusal {
    let oldest = Infinity;
    for (const entry of this.entries.values()) if ((key === null || entry.owner === key) && entry.seen < oldest) oldest = entry.seen;
    const wait = oldest === Infinity ? this.limits.idleMs : oldest + this.limits.idleMs - this.now();
    const retryAfterSeconds = Math.max(1, Math.ceil(wait / 1000));
    const remedy =
      'End the sessions you no longer use (DELETE /mcp with their mcp-session-id), reuse an open session by sending its mcp-session-id, ' +
      `or wait: a session no request names for ${idleText(this.limits.idleMs)} is closed (Retry-After says when the next one is).`;
    const whose =
      status === 503
        ? `The server has ${open} MCP sessions open, the most it holds (TASKBASE_MCP_MAX_SESSIONS=${limit}).`
        : owner.kind === 'token'
          ? `This bearer token has ${open} MCP sessions open, the most one token may hold (TASKBASE_MCP_MAX_SESSIONS_PER_TOKEN=${limit}).`
          : `This client address (${owner.key}) has ${open} MCP sessions open, the most one client may hold while auth is off ` +
            `(TASKBASE_MCP_MAX_SESSIONS_PER_TOKEN=${limit} counts per address when TASKBASE_TOKENS is unset).`;
    return { status, message: `${whose} ${remedy}`, open, limit, retryAfterSeconds };
  }
}

export function isRefusal(value: SessionSlot | SessionRefusal): value is SessionRefusal {
  return 'status' in value;
}
