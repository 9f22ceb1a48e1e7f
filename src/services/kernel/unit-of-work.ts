import type { EntityManager } from 'typeorm';
import type { Database } from '../../db/database.js';
import type { SessionEntity } from '../../db/entities/index.js';
import { appendChanges, sequenceChanges } from './changes/change-log.js';
import { num, placeholders, runStatement, selectRows, tuples } from './statements.js';
import type { ChangeEvent, CommitSignal } from './changes/change-events.js';
import type { Statement } from './statements.js';
import { DomainError } from '../../domain/errors.js';
import { noSession } from '../../domain/plan-steps.js';
import { sessionIdOf, unknownSession } from '../../domain/session-ids.js';
import { DOMAINS_PER_SESSION_MAX } from '../../domain/session-limits.js';

/**
 * What a bearer token allows (src/http/auth.ts): everything, or reading only. Every
 * adapter (GraphQL, the MCP tools) refuses a write with it before calling a service.
 */
export type Access = 'write' | 'read';

/** Who is calling: the agent session named by x-session-id, if any, and the bearer token's principal. */
export interface Caller {
  /**
   * As sent (x-session-id, --session): not yet known to name a session. A
   * write checks it before anything else (Writer.run): one naming no started
   * session is refused with NO_SESSION, so what a write records is a real
   * session's id or null. A read takes it as it is: one naming nothing just
   * finds nothing.
   */
  sessionId: string | null;
  /**
   * A digest naming the bearer token (src/http/auth.ts principalOf), never the
   * token itself; null or absent when auth is off. A session belongs to the
   * principal that started it.
   */
  principal?: string | null;
}

export type Clock = () => Date;

/**
 * One mutation's transaction and what it leaves behind: change events for
 * the change log and the domains the calling session named, both recorded in
 * the same transaction, so a refused call records neither.
 */
export class UnitOfWork {
  private readonly events: ChangeEvent[] = [];
  private readonly domains = new Set<string>();
  private stamp?: string;

  constructor(
    readonly manager: EntityManager,
    readonly caller: Caller,
    private readonly clock: Clock,
    /** What this process's earlier writes committed about sessions (WriterMemo): not read or written again. */
    private readonly memo: WriterMemo = new WriterMemo(),
  ) {}

  /**
   * The time this unit of work records, read from the clock on first use.
   * Every write path takes its row locks before it stamps anything, so on
   * PostgreSQL a transaction that waited for a lock reads the clock after the
   * one it waited for committed: history `at` and `updatedAt` never go
   * backwards under contention.
   */
  get now(): string {
    this.stamp ??= this.clock().toISOString();
    return this.stamp;
  }

  /** A change to record in the change log, made by the calling session (checked by Writer.run before any work, so a started one or null). */
  emit(event: Omit<ChangeEvent, 'at' | 'madeBy' | 'logId'>): void {
    this.events.push({ ...event, at: this.now, madeBy: sessionIdOf(this.caller.sessionId) });
  }

  private lastWrites: Statement[] = [];

  /**
   * A write that nothing after it in this unit of work reads or depends on,
   * held to go with the change-log append at the end: on PostgreSQL in the
   * append's own statement (change-log.ts), one round trip fewer. A write
   * that could depend on it calls flushLastWrites first.
   */
  writeLast(statement: Statement): void {
    this.lastWrites.push(statement);
  }

  /** Sends the writes held by writeLast now, in order: for a write that depends on them. */
  async flushLastWrites(): Promise<void> {
    for (const { sql, parameters } of this.takeLastWrites()) await runStatement(this.manager, sql, parameters);
  }

  /** @internal The writes held by writeLast, taken: the Writer sends them with the append. */
  takeLastWrites(): Statement[] {
    const taken = this.lastWrites;
    this.lastWrites = [];
    return taken;
  }

  /** The calling session named this domain (as an argument, or by touching something in it). */
  touchDomain(domain: string | null | undefined): void {
    if (domain) this.domains.add(domain);
  }

  private known?: Promise<string | null>;

  /**
   * The calling session's id when it names a started session, else null:
   * what history rows and session domains record (an x-session-id naming no
   * session is not written anywhere).
   */
  knownSessionId(): Promise<string | null> {
    this.known ??= this.namedSession().then((session) => session?.id ?? null);
    return this.known;
  }

  private named?: Promise<Pick<SessionEntity, 'id' | 'owner'> | null>;

  /** The session x-session-id names (its id and owner), or null when it names none (one that cannot be an id is not looked up). */
  private namedSession(): Promise<Pick<SessionEntity, 'id' | 'owner'> | null> {
    const sessionId = sessionIdOf(this.caller.sessionId);
    const known = sessionId ? this.memo.session(sessionId) : null;
    this.named ??= known ? Promise.resolve(known)
      : sessionId ? selectRows(this.manager, NAMED_SESSION, [sessionId]).then(([row]) => (row ? { id: row[0] as string, owner: row[1] as string | null } : null))
      : Promise.resolve(null);
    return this.named;
  }

  /** @internal Once committed: the session this unit of work found and the domains it recorded on it, for the next writes to skip. */
  async committed(): Promise<void> {
    const session = this.named ? await this.named : null;
    if (!session) return;
    this.memo.rememberSession(session);
    for (const domain of this.domains) this.memo.rememberDomain(session.id, domain);
  }

  /**
   * Who calls, checked before anything is written: an x-session-id must name
   * a started session (else `unknown`, NO_SESSION), and with auth on a
   * session of the calling token or one started without auth (else
   * FORBIDDEN). Without an x-session-id the call acts as nobody's.
   */
  async checkCaller(unknown: (sent: string) => DomainError): Promise<void> {
    const sent = this.caller.sessionId;
    if (!sent) return;
    const session = await this.namedSession();
    if (!session) throw unknown(sent);
    assertOwner(session, this.caller);
  }

  /**
   * @internal Records the touched domains on the calling session, inside the
   * transaction: those it has not named yet, while it has fewer than
   * DOMAINS_PER_SESSION_MAX (past it, a new domain is not recorded).
   */
  async flushDomains(): Promise<void> {
    if (this.domains.size === 0) return;
    const sessionId = await this.knownSessionId();
    if (!sessionId) return;
    // Recorded (or passed over at the cap) by an earlier write of this process: still so, as a session's domains are never removed.
    for (const domain of this.domains) if (this.memo.hasDomain(sessionId, domain)) this.domains.delete(domain);
    if (this.domains.size === 0) return;
    if (this.domains.size === 1) {
      // The common case, one domain, in one statement: recorded unless named already or the session is at the cap.
      await runStatement(this.manager, `INSERT INTO "session_domains" ("sessionId", "domain", "createdAt") SELECT ?, ?, ?
        WHERE (SELECT COUNT(*) FROM "session_domains" WHERE "sessionId" = ?) < ? ON CONFLICT DO NOTHING`,
      [sessionId, [...this.domains][0], this.now, sessionId, DOMAINS_PER_SESSION_MAX]);
      return;
    }
    const [[count]] = await selectRows(this.manager, `SELECT COUNT(*) FROM "session_domains" WHERE "sessionId" = ?`, [sessionId]);
    const held = num(count);
    let fresh = [...this.domains];
    if (held + fresh.length > DOMAINS_PER_SESSION_MAX) {
      // Near the cap, only the domains not named yet may take the places left.
      const known = await selectRows(this.manager, `SELECT "domain" FROM "session_domains" WHERE "sessionId" = ? AND "domain" IN (${placeholders(fresh.length)})`, [sessionId, ...fresh]);
      const named = new Set(known.map(([domain]) => domain as string));
      fresh = fresh.filter((domain) => !named.has(domain)).slice(0, Math.max(DOMAINS_PER_SESSION_MAX - held, 0));
    }
    if (fresh.length === 0) return;
    await runStatement(this.manager, `INSERT INTO "session_domains" ("sessionId", "domain", "createdAt") VALUES ${tuples(fresh.length, '?, ?, ?')} ON CONFLICT DO NOTHING`,
      fresh.flatMap((domain) => [sessionId, domain, this.now]));
  }

  /** @internal */
  takeEvents(): ChangeEvent[] {
    return this.events.splice(0);
  }
}

/**
 * FORBIDDEN when the session belongs to another bearer token. A session
 * without an owner (started while auth was off) and a caller without a
 * principal (auth off) are not checked: without auth, any caller may use any session.
 * Exported for a call that decides on the reader whether it needs the writer
 * at all (endTurn), so it refuses what a write would.
 */
export function assertOwner(session: Pick<SessionEntity, 'id' | 'owner'>, caller: Caller): void {
  if (!session.owner || !caller.principal || session.owner === caller.principal) return;
  throw new DomainError(
    'FORBIDDEN',
    `Session ${session.id} was started with another bearer token; a session is changed only with the token that started it. ` +
      'Start a session of your own with startSession and send its id in x-session-id.',
    { sessionId: session.id },
  );
}

/** Every write of a session looks its caller's session up (id and owner), so on a fixed statement. */
const NAMED_SESSION = `SELECT "id", "owner" FROM "sessions" WHERE "id" = ?`;

/**
 * PostgreSQL codes for a transaction that lost a race with a concurrent one
 * (unique key taken first, serialization failure, deadlock). The transaction
 * rolled back whole, so running it again is safe, and the retry sees the
 * winner's rows (an idempotency key's first result, say). SQLite's write
 * lock means it never gets here.
 */
const RACE_LOST = new Set(['23505', '40001', '40P01']);
const MAX_ATTEMPTS = 3;

function isRaceLost(error: unknown): boolean {
  const code = (error as { driverError?: { code?: unknown } } | null)?.driverError?.code;
  return typeof code === 'string' && RACE_LOST.has(code);
}

interface RunOptions {
  /**
   * The call acts as its calling session and needs one (the plan mutations,
   * the session's own changes, endTurn): an x-session-id naming none gets the
   * to-do tool's NO_SESSION words (errors.md "Session plans"), which clients
   * match on, instead of unknownSession's.
   */
  asSession?: boolean;
}

/**
 * Runs one mutation: a transaction holding its work, the session's domains
 * and its change events (appended to the change log last), then, once
 * committed, a wake-up for this process's own change feed.
 */
export class Writer {
  private readonly memo = new WriterMemo();

  constructor(
    private readonly db: Pick<Database, 'kind' | 'transaction' | 'tail'>,
    private readonly commits: CommitSignal,
    private readonly clock: Clock,
  ) {}

  /**
   * On PostgreSQL a commit's changes wait in the change queue until a read of
   * the log moves them in (change-log.ts); this process's feed reads at each
   * of its commits. A write is answered once that read has ended: then its
   * changes are in the log for every reader on every server, and a person's
   * change is in the agent's very next steering line (steering.service.ts),
   * wherever the agent calls. At most LOGGED_WAIT_MS: the write is committed
   * whatever the read does, and a later read moves it. A process with no
   * feed (`taskbase mcp` over stdio, the CLI) moves its changes itself, in a
   * statement after the commit. SQLite writes the log itself at commit:
   * nothing to wait for.
   */
  private async changesLogged(newestId: number | null): Promise<void> {
    const read = this.commits.heard || this.db.kind !== 'postgres'
      ? this.commits.notify(newestId)
      : this.db.tail().then((tail) => sequenceChanges(tail));
    // The feed reports its own failures (its onError); the write is committed either way, and the next move takes it.
    const ended = read.catch(() => undefined);
    if (this.db.kind !== 'postgres') return;
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => { timer = setTimeout(resolve, LOGGED_WAIT_MS); });
    await Promise.race([ended, waited]);
    clearTimeout(timer);
  }

  async run<T>(caller: Caller, work: (uow: UnitOfWork) => Promise<T>, options: RunOptions = {}): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      let newestId: number | null = null;
      let appended = false;
      let done: UnitOfWork | null = null;
      try {
        const result = await this.db.transaction(async (manager) => {
          const uow = new UnitOfWork(manager, caller, this.clock, this.memo);
          done = uow;
          await uow.checkCaller(options.asSession ? noSession : unknownSession);
          const value = await work(uow);
          await uow.flushDomains();
          const events = uow.takeEvents();
          newestId = await appendChanges(manager, this.db.kind, events, this.commits.tag, uow.takeLastWrites());
          appended = events.length > 0;
          return value;
        });
        // PostgreSQL's append gives no log id (ids are given as its change queue is moved: change-log.ts), and the feed
        // ignores this process's own NOTIFY: without this wake-up its own writes would wait for the feed's 5 s poll.
        if (appended) await this.changesLogged(newestId);
        await (done as UnitOfWork | null)?.committed();
        return result;
      } catch (error) {
        if (attempt >= MAX_ATTEMPTS || !isRaceLost(error)) throw error;
      }
    }
  }
}

/** How long an answered write waits, at most, for its changes to be moved into the log (Writer.changesLogged). */
export const LOGGED_WAIT_MS = 2_000;

/**
 * What a process's writes have committed about sessions, so the next write
 * of the same session reads and writes less: a session's id and owner (a
 * session is never deleted and its owner never changes), and the domains
 * recorded on it (never removed; one passed over at the cap stays passed
 * over, as the count never falls). Only committed facts go in. Bounded:
 * emptied when full, which costs the next writes a read each, nothing else.
 */
export class WriterMemo {
  private static readonly MAX = 20_000;
  private readonly sessions = new Map<string, Pick<SessionEntity, 'id' | 'owner'>>();
  private readonly domains = new Set<string>();

  session(id: string): Pick<SessionEntity, 'id' | 'owner'> | null {
    return this.sessions.get(id) ?? null;
  }

  rememberSession(session: Pick<SessionEntity, 'id' | 'owner'>): void {
    if (this.sessions.size >= WriterMemo.MAX) this.sessions.clear();
    this.sessions.set(session.id, { id: session.id, owner: session.owner });
  }

  hasDomain(sessionId: string, domain: string): boolean {
    return this.domains.has(`${sessionId}\u0000${domain}`);
  }

  rememberDomain(sessionId: string, domain: string): void {
    if (this.domains.size >= WriterMemo.MAX) this.domains.clear();
    this.domains.add(`${sessionId}\u0000${domain}`);
  }
}
