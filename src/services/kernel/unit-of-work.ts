import type { EntityManager } from 'typeorm';
import type { Database } from '../../db/database.js';
import { SessionDomainEntity, SessionEntity } from '../../db/entities/index.js';
import type { ChangeBus, ChangeEvent } from './changes.js';

/** Who is calling: the agent session named by x-session-id, if any. */
export interface Caller {
  sessionId: string | null;
}

export type Clock = () => Date;

/**
 * One mutation's transaction and what it leaves behind: change events to
 * publish once committed, and the domains the calling session named (recorded
 * in the same transaction, so a refused call records none).
 */
export class UnitOfWork {
  readonly now: string;
  private readonly events: ChangeEvent[] = [];
  private readonly domains = new Set<string>();

  constructor(
    readonly manager: EntityManager,
    readonly caller: Caller,
    now: Date,
  ) {
    this.now = now.toISOString();
  }

  emit(event: Omit<ChangeEvent, 'at' | 'sessionId'>): void {
    this.events.push({ ...event, at: this.now, sessionId: this.caller.sessionId });
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
    const sessionId = this.caller.sessionId;
    this.known ??= sessionId
      ? this.manager.existsBy(SessionEntity, { id: sessionId }).then((exists) => (exists ? sessionId : null))
      : Promise.resolve(null);
    return this.known;
  }

  /** @internal Records the touched domains on the calling session, inside the transaction. */
  async flushDomains(): Promise<void> {
    if (this.domains.size === 0) return;
    const sessionId = await this.knownSessionId();
    if (!sessionId) return;
    const rows = [...this.domains].map((domain) => ({ sessionId, domain, createdAt: this.now }));
    await this.manager.createQueryBuilder().insert().into(SessionDomainEntity).values(rows).orIgnore().execute();
  }

  /** @internal */
  takeEvents(): ChangeEvent[] {
    return this.events.splice(0);
  }
}

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

/** Runs one mutation: a transaction, the session's domains, then its change events once committed. */
export class Writer {
  constructor(
    private readonly db: Database,
    private readonly bus: ChangeBus,
    private readonly clock: Clock,
  ) {}

  async run<T>(caller: Caller, work: (uow: UnitOfWork) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      let events: ChangeEvent[] = [];
      try {
        const result = await this.db.transaction(async (manager) => {
          const uow = new UnitOfWork(manager, caller, this.clock());
          const value = await work(uow);
          await uow.flushDomains();
          events = uow.takeEvents();
          return value;
        });
        for (const event of events) this.bus.publish(event);
        return result;
      } catch (error) {
        if (attempt >= MAX_ATTEMPTS || !isRaceLost(error)) throw error;
      }
    }
  }
}
