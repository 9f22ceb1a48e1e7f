import type { EntityManager } from 'typeorm';
import { selectRows } from './statements.js';

/**
 * What the database has committed, as a text: two reads that answer the same
 * text see the same rows. On SQLite, `PRAGMA data_version` of the read
 * connection, which moves whenever any other connection commits (this
 * process's writer, another server, the CLI); the read connection itself
 * never writes. On PostgreSQL, the statement's snapshot (`xmin:xmax:xip`):
 * it moves when a transaction commits or ends, and while a transaction in
 * progress stays in progress its rows stay invisible. One statement that
 * reads no table, shared by the requests waiting for it (sharedRead,
 * readAfterThisTurn below).
 */
export function committedVersion(manager: EntityManager): Promise<string> {
  if (manager.connection.driver.options.type === 'postgres') {
    return sharedRead(manager.connection, async () => String((await selectRows(manager, PG_VERSION, []))[0][0]));
  }
  return readAfterThisTurn(manager.connection, async () => String((await selectRows(manager, 'PRAGMA data_version', []))[0][0]));
}

/** Per connection: the SQLite version read due once the event loop's current turn is done. */
const dueReads = new WeakMap<object, Promise<string>>();

/**
 * A SQLite version read, shared by every request that asks for it in one
 * turn of the event loop. The read itself is a call into the library (no
 * round trip to share), yet at a few thousand kept answers a second it was
 * 14 % of a kept dashboard read's CPU. It is made in setImmediate, after the
 * turn that received the requests waiting for it, so it is never older than
 * any of them; a request in a later turn waits for a read of its own.
 */
export function readAfterThisTurn(connection: object, read: () => Promise<string>): Promise<string> {
  let due = dueReads.get(connection);
  if (!due) {
    due = new Promise<string>((resolve, reject) => {
      setImmediate(() => {
        dueReads.delete(connection);
        Promise.resolve().then(read).then(resolve, reject);
      });
    });
    dueReads.set(connection, due);
  }
  return due;
}

const PG_VERSION = 'SELECT CAST(pg_current_snapshot() AS text)';

/** Per pool: the version read on its way (and since when), and the one that follows it, shared by every request that waits for it. */
const versionReads = new WeakMap<object, { running: Promise<string> | null; since: number; next: Promise<string> | null }>();

/** A shared read on its way longer than this is not waited for: a request that comes sends a read of its own. */
export const SHARED_READ_STUCK_MS = 1_000;

/**
 * A PostgreSQL version read, shared. On SQLite the read is a call into the
 * library; on PostgreSQL it is a round trip through the pool, and at a few
 * thousand kept answers a second that round trip was most of what each
 * cost. A request may share a read only if it was sent after the request
 * came (one sent before may miss a commit its caller already saw answered):
 * while one is on its way, every request that comes waits for the next,
 * sent as soon as that one is back, and shares it. So a read is never older
 * than its request, and normally one is on its way per pool. One on its way
 * for over `stuckAfterMs` (a connection gone silent) is not waited for: each
 * request that comes then sends its own read.
 */
export function sharedRead(pool: object, read: () => Promise<string>, stuckAfterMs = SHARED_READ_STUCK_MS): Promise<string> {
  let reads = versionReads.get(pool);
  if (!reads) versionReads.set(pool, (reads = { running: null, since: 0, next: null }));
  const state = reads;
  const start = (): Promise<string> => {
    const running: Promise<string> = read().finally(() => {
      if (state.running === running) state.running = null;
    });
    state.running = running;
    state.since = performance.now();
    return running;
  };
  if (!state.running) return start();
  if (performance.now() - state.since > stuckAfterMs) return read();
  state.next ??= state.running.then(() => undefined, () => undefined).then(() => {
    state.next = null;
    return start();
  });
  return state.next;
}

/**
 * Whether committed version `a` is later than `b`. SQLite's data_version
 * only grows. A PostgreSQL snapshot (`xmin:xmax:xip,…`) is later when its
 * xmax is higher or, with the same xmax, fewer of its transactions are
 * still in progress (or its xmin is higher).
 */
export function isNewer(a: string, b: string): boolean {
  try {
    return later(a, b);
  } catch {
    // Not a version either database gives: taken as the newer one, so the cache starts over at it.
    return true;
  }
}

function later(a: string, b: string): boolean {
  const [aMin, aMax, aIn = ''] = a.split(':');
  const [bMin, bMax, bIn = ''] = b.split(':');
  if (aMax === undefined || bMax === undefined) return BigInt(a) > BigInt(b);
  if (BigInt(aMax) !== BigInt(bMax)) return BigInt(aMax) > BigInt(bMax);
  const running = (list: string) => (list === '' ? 0 : list.split(',').length);
  if (running(aIn) !== running(bIn)) return running(aIn) < running(bIn);
  return BigInt(aMin!) > BigInt(bMin!);
}

/** How much a cache may hold at one version: keys, and the weight of their values (about their bytes). */
export interface CommittedCacheLimits<T> {
  /** False (TASKBASE_KEEP_READS=off): every use derives, with no committed version read and nothing kept. */
  enabled?: boolean;
  /** Distinct keys kept at one version; past it the oldest goes. */
  keys: number;
  /** A value's weight (its texts' bytes, roughly; its key's are added); a value heavier than `weight` is never kept. */
  weigh?: (value: T) => number;
  /** The kept values' weights together; past it the oldest go. */
  weight?: number;
}

/**
 * Whether committed caches keep anything. Only the bench turns it off (its
 * probe, src/server/bench-probe.ts), to measure a kept read's cost when nothing is
 * kept beside its cost when it is.
 */
let keeping = true;
export function keepCommittedReads(on: boolean): void {
  keeping = on;
}

/**
 * Answers derived from committed rows, kept until anything commits: each use
 * reads the committed version first (one statement) and answers what was
 * derived at that version, or derives it again. For reads that are read far
 * more often than anything commits, and whose derivation costs far more than
 * that statement: domains() sums every domain's kept counts into a tree;
 * memories pages, search pages and mustRead lists read and rank rows that
 * only a commit can change (none of them depends on the clock). A value is
 * kept only under the version read before its rows were read, so a commit
 * between the two only makes the next use derive it again. A read in a
 * write's transaction must not use one (it would keep rows nobody else can
 * see yet): the readers that do take the read connection only.
 */
export class CommittedCache<T> {
  private version: string | null = null;
  private readonly kept = new Map<string, { value: T; weight: number }>();
  private weight = 0;

  constructor(private readonly limits: CommittedCacheLimits<T>) {}

  /**
   * The value kept under `key` at the committed version, or `derive`'s (kept
   * unless `keepable` says not), which is handed the version read before it
   * (null when the cache is not enabled).
   * `known`: the version this request read already, before any of its rows
   * (a kept answer's, repeated-queries.ts), so it is not read twice.
   */
  async get(
    manager: EntityManager, key: string, derive: (version: string | null) => Promise<T>,
    { keepable = () => true, known }: { keepable?: (value: T) => boolean; known?: string | null } = {},
  ): Promise<T> {
    if (this.limits.enabled === false) return derive(null);
    const version = known ?? (await committedVersion(manager));
    if (version !== this.version) {
      // A request that read its version before another moved past it: answered, but nothing it derives is kept,
      // and what is kept at the newer version stays.
      if (this.version !== null && !isNewer(version, this.version)) return derive(version);
      this.version = version;
      this.kept.clear();
      this.weight = 0;
    }
    const kept = keeping ? this.kept.get(key) : undefined;
    if (kept !== undefined) return kept.value;
    const value = await derive(version);
    if (this.version === version && keeping && keepable(value)) this.keep(key, value);
    return value;
  }

  private keep(key: string, value: T): void {
    // Two requests that missed the same key together both keep it: the second replaces the first.
    const replaced = this.kept.get(key);
    if (replaced) {
      this.kept.delete(key);
      this.weight -= replaced.weight;
    }
    const weight = (this.limits.weigh?.(value) ?? 0) + 2 * key.length;
    const most = this.limits.weight ?? Infinity;
    if (weight > most) return;
    while (this.kept.size > 0 && (this.kept.size >= this.limits.keys || this.weight + weight > most)) {
      const [oldest, { weight: its }] = this.kept.entries().next().value!;
      this.kept.delete(oldest);
      this.weight -= its;
    }
    this.kept.set(key, { value, weight });
    this.weight += weight;
  }
}
