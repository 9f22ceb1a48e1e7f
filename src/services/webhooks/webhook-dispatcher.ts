import type { EntityManager } from 'typeorm';
import type { Database } from '../../db/database.js';
import type { LoggedChangeEntity } from '../../db/entities/index.js';
import { inScope } from '../../domain/domains.js';
import { retryDelayMs, type WebhookRetry } from '../../domain/webhooks.js';
import { loggedChangeOf } from '../kernel/changes/logged-change.js';
import type { ChangeFeed } from '../kernel/changes/change-feed.js';
import { loggedChangesAfter } from '../kernel/changes/change-log.js';
import { CoalescedPasses } from '../kernel/coalesced.js';
import { num, runStatement, selectRows } from '../kernel/statements.js';
import type { Clock } from '../kernel/unit-of-work.js';
import type { AttemptResult, Send } from './webhook-sender.js';
import { DELIVERIES_MAX } from './webhook.service.js';

/** Changes one POST carries at most. */
const BATCH_CHANGES = 100;
/** Log rows read after one position per pass: a webhook of a narrow domain skips this many others at a time. */
const READ_ROWS = 500;
/**
 * The least time between two passes that wrote: a pass records every
 * answer that came in and takes every lease due in one transaction, so the
 * dispatcher's share of the write lock is at most one short transaction per
 * gap, whatever the number of webhooks (and each POST carries what gathered).
 */
const PASS_GAP_MS = 100;
/** A lease outlives the attempt it covers by this much, so a slow attempt is never sent twice at once. */
const LEASE_MARGIN_MS = 30_000;
const PRUNE_EVERY_MS = 60_000;
/** Why a webhook stopped when the log no longer held the changes it still owed. */
const PRUNED_ERROR = 'changes it had not delivered were pruned from the change log (TASKBASE_CHANGE_LOG_DAYS, TASKBASE_CHANGE_LOG_ROWS)';

interface DispatcherOptions extends WebhookRetry {
  timeoutMs: number;
  send: Send;
  clock: Clock;
  /** A pass failed (the database is away); the next wake-up tries again. */
  onError(error: unknown): void;
  /** One attempt's outcome, for the log. */
  onAttempt?(attempt: { webhookId: number; deliveryId: string; changes: number; attempts: number; status: number | null; error?: string; gaveUp: boolean }): void;
}

interface Hook {
  id: number;
  url: string;
  secret: string;
  domain: string | null;
  /** The last change delivered. */
  position: number;
  /** The last change of the POST under way, or null. */
  sending: number | null;
  /** The delivery of the POST under way or due for a retry, when `sending` is set. */
  open: Open | null;
}

/** A webhook's open delivery: the POST of the changes after `after` up to `through`. */
interface Open {
  id: number;
  webhookId: number;
  after: number;
  through: number;
  changeCount: number;
  attempts: number;
  nextAttemptAt: string;
  leasedUntil: string | null;
}

/** A delivery this server leased: send it, then record the answer. */
interface Leased {
  hook: Hook;
  delivery: Open;
  lease: string;
  /** Each change as the body carries it (JSON, as `changes` answers it). */
  changes: string[];
}

interface Outcome extends Leased {
  result: AttemptResult;
  at: string;
}

/** One webhook's part of a pass's transaction that is rare (a retry's lease, a stop): a statement of its own; `send` when it leased a delivery. */
type Step = { webhookId: number; run(manager: EntityManager): Promise<Leased | null> };

/** A webhook with no POST under way whose cursor moves to `through`: a POST of `changes` opens, or, with none under its domain, it just moves. */
interface Move {
  hook: Hook;
  through: number;
  changes: string[];
}

/** What a pass's transaction does besides recording answers: the rare steps, then every cursor move of the pass in one statement. */
interface Plan {
  steps: Step[];
  moves: Move[];
}

/**
 * Delivers webhooks from the change log, so that a write costs the same
 * whatever the number of webhooks: no writer's transaction does webhook work,
 * and nothing is copied per webhook. Every server may run one; what must
 * happen once is decided by row updates in the database.
 *
 * Each webhook keeps a cursor in the log (`position`, the last change
 * delivered). A pass reads, on the feed's own connection, the active
 * webhooks and the log after their cursors, then in one transaction records
 * the answers of the POSTs that ended since the last pass and leases what is
 * due: a webhook with no POST under way claims the next changes under its
 * domain (up to BATCH_CHANGES, an UPDATE of its `sending` that succeeds for
 * one server only) and opens one delivery row for them; an open delivery
 * whose retry is due is leased (an UPDATE of its `leasedUntil`, likewise).
 * The POSTs go out after that commit, outside any transaction. A 2xx moves
 * the cursor to the delivery's last change; another answer is tried again
 * after retryDelayMs with the same delivery id and the same changes (read
 * from the log again), and after maxAttempts the webhook is marked inactive,
 * leaving its one stopped delivery. A server that dies mid-send leaves a
 * lease that expires, and the delivery is sent again (at least once). Only
 * one POST per webhook is under way at a time, so they arrive in order.
 */
export class WebhookDispatcher {
  private readonly passes = new CoalescedPasses(
    () => this.pass().catch((error) => { if (!this.closed) this.options.onError(error); }),
    () => !this.closed,
  );
  private closed = false;
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private lastPrune = 0;
  /**
   * Whether the last pass found no active webhook: until the next tick, a
   * wake-up from the log growing does not ask again (every write grows the
   * log). A webhook made by another process is found at the next tick (at
   * most a second) and still gets every change after its cursor; one made by
   * this process at once (hooksChanged).
   */
  private noActiveHooks = false;
  /** The webhooks this server is POSTing to now, and what each attempt made of it. */
  private readonly sending = new Map<number, Promise<void>>();
  /** Answers not yet recorded: the next pass records them in its transaction. */
  private readonly answered: Outcome[] = [];

  constructor(
    private readonly db: Database,
    private readonly options: DispatcherOptions,
  ) {}

  /** Runs whenever the feed finds the log grown, and on a timer for retries that come due. */
  start(feed: ChangeFeed): void {
    this.unsubscribe = feed.onGrown(() => { if (!this.noActiveHooks) this.wake(); });
    this.timer = setInterval(() => this.hooksChanged(), this.tickMs());
    this.timer.unref();
    this.wake();
  }

  wake(): void {
    void this.passes.request();
  }

  /** Webhooks may have been made (a tick, or this process made one): the next pass asks which are active. */
  hooksChanged(): void {
    this.noActiveHooks = false;
    this.wake();
  }

  private tickMs(): number {
    return Math.max(20, Math.min(1_000, this.options.backoffMs));
  }

  /** Stops taking work, waits for the POSTs under way, and records their answers (a lease left behind would only delay a resend). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.unsubscribe?.();
    await this.passes.settled();
    await Promise.all(this.sending.values());
    if (this.answered.length > 0) await this.pass().catch(() => undefined);
  }

  private now(): string {
    return this.options.clock().toISOString();
  }

  private async pass(): Promise<void> {
    const outcomes = this.answered.splice(0);
    let leased: Leased[];
    try {
      leased = await this.step(outcomes);
    } catch (error) {
      // Not recorded: the next pass tries again (a lease taken by another server since makes it a no-op).
      this.answered.unshift(...outcomes);
      throw error;
    }
    for (const delivery of leased) this.post(delivery);
    if (Date.now() - this.lastPrune > PRUNE_EVERY_MS && !this.closed) {
      this.lastPrune = Date.now();
      await this.db.transaction((manager) => runStatement(manager, PRUNE_DELIVERED, [DELIVERIES_MAX - 1]));
    }
    if ((outcomes.length > 0 || leased.length > 0) && !this.closed) await new Promise((resolve) => setTimeout(resolve, PASS_GAP_MS));
  }

  /** Reads what is due, then records the answers and takes the leases in one transaction; the leased deliveries, to send. */
  private async step(outcomes: Outcome[]): Promise<Leased[]> {
    const tail = await this.db.tail();
    // Cleared before the read: a webhook made during it sets it again (hooksChanged) and the next pass looks again.
    this.noActiveHooks = false;
    const hooks = await this.activeHooks(tail);
    if (hooks.length === 0 && outcomes.length === 0) {
      this.noActiveHooks = true;
      return [];
    }
    return this.carryOut(outcomes, this.closed ? { steps: [], moves: [] } : await this.plan(tail, hooks, outcomes));
  }

  /**
   * A pass's one transaction, whose statements do not grow with its
   * webhooks: every answer is recorded in one statement (and one per kind of
   * outcome), every cursor move is made in one, and every POST opened in one
   * INSERT; only retries' leases and stops go one webhook at a time.
   */
  private async carryOut(outcomes: Outcome[], { steps, moves }: Plan): Promise<Leased[]> {
    if (outcomes.length === 0 && steps.length === 0 && moves.length === 0) return [];
    // In webhook order, so two servers' passes lock rows in the same order (no deadlock on PostgreSQL).
    steps.sort((a, b) => a.webhookId - b.webhookId);
    return this.db.transaction(async (manager) => {
      await this.recordAll(manager, outcomes);
      const taken: Leased[] = [];
      for (const step of steps) {
        const delivery = await step.run(manager);
        if (delivery) taken.push(delivery);
      }
      taken.push(...(await this.moveAll(manager, moves)));
      return taken;
    });
  }

  /** The active webhooks, each with its open delivery (a POST under way or a retry due): one read for both. */
  private async activeHooks(tail: EntityManager): Promise<Hook[]> {
    const rows = await selectRows(tail, `SELECT w."id", w."url", w."secret", w."domain", w."position", w."sending",
        d."id", d."afterChangeId", d."throughChangeId", d."changeCount", d."attempts", d."nextAttemptAt", d."leasedUntil"
      FROM (SELECT "id", "url", "secret", "domain", "position", "sending" FROM "webhooks" WHERE "active" = ?) w
      LEFT JOIN "webhook_deliveries" d ON w."sending" IS NOT NULL AND d."webhookId" = w."id" AND d."deliveredAt" IS NULL AND d."nextAttemptAt" IS NOT NULL
      ORDER BY w."id", d."id"`, [true]);
    const hooks = new Map<number, Hook>();
    for (const [id, url, secret, domain, position, sending, deliveryId, after, through, changeCount, attempts, nextAttemptAt, leasedUntil] of rows) {
      const open: Open | null = deliveryId === null ? null : {
        id: num(deliveryId), webhookId: num(id), after: num(after), through: num(through), changeCount: num(changeCount), attempts: num(attempts),
        nextAttemptAt: nextAttemptAt as string, leasedUntil: leasedUntil as string | null,
      };
      // A webhook has one open delivery; were there two, the newest is the one its `sending` names.
      hooks.set(num(id), {
        id: num(id), url: url as string, secret: secret as string, domain: domain as string | null, position: num(position),
        sending: sending === null ? null : num(sending), open: open ?? hooks.get(num(id))?.open ?? null,
      });
    }
    return [...hooks.values()];
  }

  /** What each webhook not being sent to here needs, read as of now with this pass's answers applied. */
  private async plan(tail: EntityManager, hooks: Hook[], outcomes: Outcome[]): Promise<Plan> {
    const now = this.now();
    // Each change is rendered once per pass, however many webhooks carry it.
    const rendered = new Map<number, string>();
    const render = (rows: LoggedChangeEntity[]) => rows.map((row) => {
      const id = num(row.id);
      if (!rendered.has(id)) rendered.set(id, JSON.stringify(loggedChangeOf(row)));
      return rendered.get(id)!;
    });
    const waiting = new Set<number>();
    for (const outcome of outcomes) {
      const hook = hooks.find((each) => each.id === outcome.hook.id);
      if (!hook) continue;
      if (this.delivered(outcome)) Object.assign(hook, { position: outcome.delivery.through, sending: null });
      else waiting.add(hook.id);
    }
    const idle = hooks.filter((hook) => !this.sending.has(hook.id) && !waiting.has(hook.id));
    const steps: Step[] = [];
    const retrying = idle.filter((hook) => hook.sending !== null);
    for (const hook of retrying) {
      const delivery = hook.open;
      if (!delivery || delivery.nextAttemptAt > now || (delivery.leasedUntil !== null && delivery.leasedUntil > now)) continue;
      const rows = (await loggedChangesAfter(tail, delivery.after, READ_ROWS, { move: false })).filter((row) => num(row.id) <= delivery.through);
      const changes = render(this.inDomain(hook, rows));
      steps.push({ webhookId: hook.id, run: (manager) => this.lease(manager, hook, delivery, changes) });
    }
    const behind = idle.filter((hook) => hook.sending === null);
    const moves: Move[] = [];
    const log = new LogWindow(tail);
    for (const hook of behind.sort((a, b) => a.position - b.position)) {
      const rows = await log.after(hook.position);
      if (rows.length === 0) continue;
      if (num(rows[0].id) > hook.position + 1 && (await this.oldestChangeId(tail)) > hook.position + 1) {
        steps.push({ webhookId: hook.id, run: (manager) => this.stopPruned(manager, hook, num(rows[0].id) - 1) });
        continue;
      }
      const wanted = this.inDomain(hook, rows).slice(0, BATCH_CHANGES);
      // A full batch ends at its last change; otherwise every row read is passed, those of other domains included.
      const through = num((wanted.length === BATCH_CHANGES ? wanted : rows).at(-1)!.id);
      moves.push({ hook, through, changes: render(wanted) });
    }
    return { steps, moves };
  }

  private inDomain(hook: Hook, rows: LoggedChangeEntity[]): LoggedChangeEntity[] {
    return rows.filter((row) => hook.domain === null || (row.domain !== null && inScope(row.domain, hook.domain)));
  }

  private async oldestChangeId(tail: EntityManager): Promise<number> {
    const [[oldest]] = await selectRows(tail, `SELECT MIN("id") FROM "changes"`, []);
    return oldest === null || oldest === undefined ? 0 : num(oldest);
  }

  /**
   * On PostgreSQL, a condition that passes over every webhook whose row
   * another server's pass holds (it is recording that webhook's answer or
   * opening its next POST, and will do what is due): waiting for it would
   * queue every server's pass behind the slowest one's whole transaction.
   * It locks only rows still without a POST under way: a row read stale
   * whose POST another server opened since is left unlocked, so the answer
   * that server records for it never waits for this pass.
   * SQLite has one server per file.
   */
  private unlocked(ids: number[]): { sql: string; parameters: number[] } {
    return this.db.kind === 'postgres'
      ? { sql: ` AND "webhooks"."id" IN (SELECT "id" FROM "webhooks" WHERE "id" IN (${ids.map(() => '?').join(', ')}) AND "sending" IS NULL FOR UPDATE SKIP LOCKED)`, parameters: ids }
      : { sql: '', parameters: [] };
  }

  private leaseUntil(): string {
    return new Date(this.options.clock().getTime() + this.options.timeoutMs + LEASE_MARGIN_MS).toISOString();
  }

  /**
   * Moves the cursors of the webhooks with no POST under way, each only
   * while it still stands where this pass read it (another server may have
   * claimed or delivered those changes since), in one statement for all:
   * one with changes under its domain claims them (`sending`), and its
   * delivery opens, leased, in one INSERT for all; one with none passes them.
   */
  private async moveAll(manager: EntityManager, moves: Move[]): Promise<Leased[]> {
    if (moves.length === 0) return [];
    const ids = moves.map(({ hook }) => hook.id);
    const unlocked = this.unlocked(ids);
    // An opening sets `sending` and keeps `position`; a pass over other domains' changes sets `position` and leaves `sending` null.
    const rows = (await selectRows(manager, `UPDATE "webhooks" SET "sending" = CASE WHEN v.column4 = 1 THEN v.column3 ELSE NULL END,
        "position" = CASE WHEN v.column4 = 1 THEN "webhooks"."position" ELSE v.column3 END
      FROM (VALUES ${moves.map(() => '(CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS INTEGER))').join(', ')}) AS v
      WHERE "webhooks"."id" = v.column1 AND "webhooks"."position" = v.column2 AND "webhooks"."sending" IS NULL AND "webhooks"."active" = ?${unlocked.sql}
      RETURNING "webhooks"."id"`,
    [...moves.flatMap(({ hook, through, changes }) => [hook.id, hook.position, through, changes.length > 0 ? 1 : 0]), true, ...unlocked.parameters]));
    const moved = new Set(rows.map(([id]) => num(id)));
    const opened = moves.filter(({ hook, changes }) => moved.has(hook.id) && changes.length > 0);
    if (opened.length === 0) return [];
    const now = this.now();
    const lease = this.leaseUntil();
    const inserted = await selectRows(manager, `INSERT INTO "webhook_deliveries" ("webhookId", "afterChangeId", "throughChangeId", "changeCount", "firstChange", "attempts",
      "lastStatus", "lastError", "deliveredAt", "nextAttemptAt", "leasedUntil") VALUES ${opened.map(() => '(?, ?, ?, ?, ?, 0, NULL, NULL, NULL, ?, ?)').join(', ')} RETURNING "id", "webhookId"`,
    opened.flatMap(({ hook, through, changes }) => [hook.id, hook.position, through, changes.length, changes[0], now, lease]));
    const deliveryOf = new Map(inserted.map(([id, webhookId]) => [num(webhookId), num(id)]));
    return opened.map(({ hook, through, changes }) => ({
      hook: { ...hook, sending: through },
      delivery: { id: deliveryOf.get(hook.id)!, webhookId: hook.id, after: hook.position, through, changeCount: changes.length, attempts: 0, nextAttemptAt: now, leasedUntil: lease },
      lease,
      changes,
    }));
  }

  /**
   * Leases an open delivery whose retry is due, only while it still stands as
   * this pass read it (the same attempts, still due, unleased): another
   * server may have taken, sent and recorded it since.
   */
  private async lease(manager: EntityManager, hook: Hook, delivery: Open, changes: string[]): Promise<Leased | null> {
    const now = this.now();
    if (changes.length !== delivery.changeCount) {
      // The log no longer holds what the first attempt sent: stop rather than send a different body under the same id.
      const stopped = await selectRows(manager, `UPDATE "webhook_deliveries" SET "lastError" = ?, "nextAttemptAt" = NULL WHERE "id" = ? AND "attempts" = ?
        AND "deliveredAt" IS NULL AND ("leasedUntil" IS NULL OR "leasedUntil" <= ?) RETURNING "id"`, [PRUNED_ERROR, delivery.id, delivery.attempts, now]);
      if (stopped.length > 0) await runStatement(manager, `UPDATE "webhooks" SET "active" = ? WHERE "id" = ?`, [false, hook.id]);
      return null;
    }
    const lease = this.leaseUntil();
    const taken = await selectRows(manager, `UPDATE "webhook_deliveries" SET "leasedUntil" = ? WHERE "id" = ? AND "deliveredAt" IS NULL AND "attempts" = ?
      AND "nextAttemptAt" IS NOT NULL AND "nextAttemptAt" <= ? AND ("leasedUntil" IS NULL OR "leasedUntil" <= ?) RETURNING "id"`,
    [lease, delivery.id, delivery.attempts, now, now]);
    return taken.length === 0 ? null : { hook, delivery, lease, changes };
  }

  /** Stops a webhook whose next changes the log no longer holds, with a delivery saying so (its stoppedBy). */
  private async stopPruned(manager: EntityManager, hook: Hook, through: number): Promise<null> {
    const stopped = await selectRows(manager, `UPDATE "webhooks" SET "active" = ? WHERE "id" = ? AND "position" = ? AND "sending" IS NULL AND "active" = ? RETURNING "id"`,
      [false, hook.id, hook.position, true]);
    if (stopped.length === 0) return null;
    await runStatement(manager, `INSERT INTO "webhook_deliveries" ("webhookId", "afterChangeId", "throughChangeId", "changeCount", "firstChange", "attempts",
      "lastStatus", "lastError", "deliveredAt", "nextAttemptAt", "leasedUntil") VALUES (?, ?, ?, 0, NULL, 0, NULL, ?, NULL, NULL, NULL)`,
    [hook.id, hook.position, through, PRUNED_ERROR]);
    return null;
  }

  private delivered(outcome: Outcome): boolean {
    return outcome.result.status !== null && outcome.result.status >= 200 && outcome.result.status < 300;
  }

  /**
   * Records the pass's answers, each only if this server's lease on it still
   * holds, in one statement for all; then, for those recorded, a delivered
   * one moves its webhook's cursor (one statement for all) and the last
   * failed attempt stops its webhook (one for all).
   */
  private async recordAll(manager: EntityManager, outcomes: Outcome[]): Promise<void> {
    if (outcomes.length === 0) return;
    const rows = outcomes.map((outcome) => {
      const { delivery, result } = outcome;
      const attempts = delivery.attempts + 1;
      const delivered = this.delivered(outcome);
      const gaveUp = !delivered && attempts >= this.options.maxAttempts;
      return {
        outcome, delivered, gaveUp,
        values: [
          delivery.id, outcome.lease, attempts, result.status,
          result.status === null ? (result.error ?? 'no answer').slice(0, 300) : null,
          delivered ? outcome.at : null,
          delivered || gaveUp ? null : new Date(this.options.clock().getTime() + retryDelayMs(this.options, attempts)).toISOString(),
        ],
      };
    });
    const recorded = new Set((await selectRows(manager, `UPDATE "webhook_deliveries" SET "attempts" = v.column3, "lastStatus" = v.column4, "lastError" = v.column5,
        "deliveredAt" = v.column6, "nextAttemptAt" = v.column7, "leasedUntil" = NULL
      FROM (VALUES ${rows.map(() => '(CAST(? AS INTEGER), CAST(? AS TEXT), CAST(? AS INTEGER), CAST(? AS INTEGER), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT))').join(', ')}) AS v
      WHERE "webhook_deliveries"."id" = v.column1 AND "webhook_deliveries"."leasedUntil" = v.column2 RETURNING "webhook_deliveries"."id"`,
    rows.flatMap((row) => row.values))).map(([id]) => num(id)));
    const mine = rows.filter((row) => recorded.has(row.outcome.delivery.id)).sort((a, b) => a.outcome.delivery.webhookId - b.outcome.delivery.webhookId);
    const delivered = mine.filter((row) => row.delivered).map((row) => row.outcome.delivery);
    if (delivered.length > 0) {
      await runStatement(manager, `UPDATE "webhooks" SET "position" = v.column2, "sending" = NULL
        FROM (VALUES ${delivered.map(() => '(CAST(? AS BIGINT), CAST(? AS BIGINT))').join(', ')}) AS v WHERE "webhooks"."id" = v.column1 AND "webhooks"."sending" = v.column2`,
      delivered.flatMap((delivery) => [delivery.webhookId, delivery.through]));
    }
    const stopped = mine.filter((row) => row.gaveUp).map((row) => row.outcome.delivery.webhookId);
    if (stopped.length > 0) {
      await runStatement(manager, `UPDATE "webhooks" SET "active" = ? WHERE "id" IN (${stopped.map(() => '?').join(', ')})`, [false, ...stopped]);
    }
  }

  /** POSTs a leased delivery outside any transaction; the next pass records the answer. */
  private post(leased: Leased): void {
    const { hook, delivery, changes } = leased;
    const deliveryId = String(delivery.id);
    // The bytes JSON.stringify({ webhookId, changes }) would give, from the changes rendered once.
    const body = `{"webhookId":${JSON.stringify(String(hook.id))},"changes":[${changes.join(',')}]}`;
    const sending = this.options.send({ url: hook.url, secret: hook.secret, deliveryId, body })
      .then((result) => {
        this.answered.push({ ...leased, result, at: this.now() });
        const attempts = delivery.attempts + 1;
        const gaveUp = !this.delivered({ ...leased, result, at: '' }) && attempts >= this.options.maxAttempts;
        this.options.onAttempt?.({ webhookId: hook.id, deliveryId, changes: changes.length, attempts, status: result.status, error: result.error, gaveUp });
      })
      .catch((error) => { if (!this.closed) this.options.onError(error); })
      .finally(() => {
        this.sending.delete(hook.id);
        this.wake();
      });
    this.sending.set(hook.id, sending);
  }
}

/** Delivered rows beyond each webhook's latest DELIVERIES_MAX (what `deliveries` can list) are deleted. */
const PRUNE_DELIVERED = `DELETE FROM "webhook_deliveries" WHERE "deliveredAt" IS NOT NULL AND "id" < (
  SELECT k."id" FROM "webhook_deliveries" k WHERE k."webhookId" = "webhook_deliveries"."webhookId" ORDER BY k."id" DESC LIMIT 1 OFFSET ?)`;

/**
 * The log after the positions one pass needs, read once from the lowest and
 * shared: most webhooks stand at about the same place, so 50 of them cost one
 * read, not 50. A webhook further on takes the rows after it from a window
 * already read (a shorter batch when the window stops short of the log's
 * end); one past every window read reads its own.
 */
class LogWindow {
  private readonly windows: { from: number; rows: LoggedChangeEntity[]; toEnd: boolean }[] = [];

  constructor(private readonly tail: EntityManager) {}

  async after(position: number): Promise<LoggedChangeEntity[]> {
    for (const window of this.windows) {
      if (window.from > position) continue;
      const rows = window.rows.filter((row) => num(row.id) > position);
      if (rows.length > 0 || window.toEnd) return rows;
    }
    const rows = await loggedChangesAfter(this.tail, position, READ_ROWS, { move: false });
    this.windows.push({ from: position, rows, toEnd: rows.length < READ_ROWS });
    return rows;
  }
}
