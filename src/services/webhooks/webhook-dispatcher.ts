import type { EntityManager } from 'typeorm';
import type { Database } from '../../db/database.js';
import { WebhookDeliveryEntity } from '../../db/entities/index.js';
import { inScope } from '../../domain/domains.js';
import { retryDelayMs, type WebhookRetry } from '../../domain/webhooks.js';
import { loggedChangeOf } from '../changes/logged-change.js';
import type { ChangeFeed } from '../kernel/change-feed.js';
import { loggedChangesAfter, newestChangeId } from '../kernel/change-log.js';
import { CoalescedPasses } from '../kernel/coalesced.js';
import { num, runStatement, selectRows, tuples } from '../kernel/statements.js';
import type { Clock } from '../kernel/unit-of-work.js';
import type { Send } from './webhook-sender.js';

/** Changes copied into one webhook's outbox per transaction. */
const FILL_BATCH = 500;
/** A lease outlives the attempt it covers by this much, so a slow attempt is never sent twice at once. */
const LEASE_MARGIN_MS = 30_000;
/** Delivered rows are kept this long (the latest stay visible in `webhooks`), then deleted. */
const DELIVERED_KEPT_MS = 7 * 86_400_000;
const PRUNE_EVERY_MS = 60_000;

interface DispatcherOptions extends WebhookRetry {
  timeoutMs: number;
  send: Send;
  clock: Clock;
  /** A pass failed (the database is away); the next wake-up tries again. */
  onError(error: unknown): void;
  /** One attempt's outcome, for the log. */
  onAttempt?(attempt: { webhookId: number; deliveryId: string; attempts: number; status: number | null; error?: string; gaveUp: boolean }): void;
}

interface Due {
  id: number;
  webhookId: number;
  body: string;
  attempts: number;
  url: string;
  secret: string;
}

/**
 * Delivers webhooks from the outbox in the database, so that every server
 * may run one and nothing depends on a process's memory.
 *
 * Filling: each webhook keeps a durable position in the change log; a pass
 * copies the changes after it (those under the webhook's domain) into
 * delivery rows and moves the position, in one transaction, holding the
 * webhook's row (SKIP LOCKED on PostgreSQL, the write lock on SQLite), so
 * the outbox is filled once, in log order, whichever server does it. No
 * writer's transaction does any of this: a change is copied after it commits.
 *
 * Sending: only the head of each webhook's queue (its oldest undelivered
 * row) is sent, so deliveries arrive in order per webhook. A server takes a
 * head by setting its lease (an UPDATE that succeeds for one server only),
 * sends it outside any transaction, then records the answer: delivered on a
 * 2xx; otherwise tried again after retryDelayMs, and after maxAttempts the
 * webhook is marked inactive. A server that dies mid-send leaves a lease
 * that expires, and the head is sent again (at least once).
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
   * Whether the last pass found no active webhook: until the next
   * tick, a wake-up from the log growing does not ask again. Every write
   * grows the log, and asking on each was 1.7 % of a write's CPU with no
   * webhook at all; a webhook made by another process is found at the next
   * tick (at most a second) and still gets every change after its position,
   * one made by this process at once (hooksChanged).
   */
  private noActiveHooks = false;
  /** The attempt under way for each webhook: a slow endpoint holds its own queue only, never another webhook's or the next pass. */
  private readonly sending = new Map<number, Promise<void>>();

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
    this.passes.request();
  }

  /** Webhooks may have been made (a tick, or this process made one): the next pass asks which are active. */
  hooksChanged(): void {
    this.noActiveHooks = false;
    this.wake();
  }

  private tickMs(): number {
    return Math.max(20, Math.min(1_000, this.options.backoffMs));
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.unsubscribe?.();
    await this.passes.settled();
    await Promise.all(this.sending.values());
  }

  private now(): string {
    return this.options.clock().toISOString();
  }

  private async pass(): Promise<void> {
    // The feed's own connection: a dispatcher's reads never count as, or wait behind, a request's.
    const tail = await this.db.tail();
    if (!(await this.fill(tail))) {
      this.noActiveHooks = true;
      return;
    }
    for (const delivery of await this.due(tail)) {
      if (this.closed || this.sending.has(delivery.webhookId)) continue;
      const sending = this.attempt(delivery)
        .catch((error) => {
          if (!this.closed) this.options.onError(error);
          return false;
        })
        .then((moved) => {
          this.sending.delete(delivery.webhookId);
          // A delivered head makes the next one due now, not at the next tick.
          if (moved) this.wake();
        });
      this.sending.set(delivery.webhookId, sending);
    }
    if (Date.now() - this.lastPrune > PRUNE_EVERY_MS) {
      this.lastPrune = Date.now();
      const cutoff = new Date(this.options.clock().getTime() - DELIVERED_KEPT_MS).toISOString();
      await this.db.transaction((manager) => manager.createQueryBuilder().delete().from(WebhookDeliveryEntity)
        .where('"deliveredAt" IS NOT NULL AND "deliveredAt" < :cutoff', { cutoff }).execute());
    }
  }

  /**
   * Copies new changes into the outbox of every active webhook that is
   * behind the log (read first, so an idle pass writes nothing). False when
   * there is no active webhook: the pass has nothing to send either.
   */
  private async fill(tail: EntityManager): Promise<boolean> {
    // Cleared before the read: a webhook made during it sets it again (hooksChanged) and the next pass looks again.
    this.noActiveHooks = false;
    const hooks = (await selectRows(tail, `SELECT "id", "position" FROM "webhooks" WHERE "active" = ?`, [true]))
      .map(([id, position]) => ({ id: num(id), position: num(position) }));
    if (hooks.length === 0) return false;
    const newest = await newestChangeId(tail);
    for (const hook of hooks) {
      while (!this.closed && hook.position < newest) {
        const moved = await this.db.transaction((manager) => this.fillOne(manager, hook.id));
        if (moved === null) break;
        hook.position = moved;
      }
    }
    return true;
  }

  /** One batch for one webhook; its new position, or null when another server holds it or nothing was left. */
  private async fillOne(manager: EntityManager, webhookId: number): Promise<number | null> {
    const lock = this.db.kind === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : '';
    const [hook] = (await selectRows(manager, `SELECT "id", "domain", "position" FROM "webhooks" WHERE "id" = ? AND "active" = ?${lock}`, [webhookId, true]))
      .map(([id, domain, position]) => ({ id: num(id), domain: domain as string | null, position: num(position) }));
    if (!hook) return null;
    const rows = await loggedChangesAfter(manager, hook.position, FILL_BATCH);
    if (rows.length === 0) return null;
    const now = this.now();
    const deliveries = rows
      .filter((row) => hook.domain === null || (row.domain !== null && inScope(row.domain, hook.domain)))
      .flatMap((row) => [hook.id, num(row.id), JSON.stringify({ webhookId: String(hook.id), change: loggedChangeOf(row) }), now]);
    if (deliveries.length > 0) {
      // A new delivery is unsent: no attempts, status, error or lease yet, due now.
      const unsent = tuples(deliveries.length / 4, '?, ?, ?, 0, NULL, NULL, NULL, ?, NULL');
      await runStatement(manager, `INSERT INTO "webhook_deliveries" ("webhookId", "changeId", "body", "attempts", "lastStatus", "lastError", "deliveredAt", "nextAttemptAt", "leasedUntil") VALUES ${unsent}`, deliveries);
    }
    const position = num(rows.at(-1)!.id);
    await runStatement(manager, `UPDATE "webhooks" SET "position" = ? WHERE "id" = ?`, [position, hook.id]);
    return position;
  }

  /** The head of each active webhook's queue, when due and not leased by a server sending it (read among undelivered rows only). */
  private async due(tail: EntityManager): Promise<Due[]> {
    const now = this.now();
    const rows = await selectRows(tail, `SELECT d."id", d."webhookId", d."body", d."attempts", w."url", w."secret"
      FROM "webhook_deliveries" d INNER JOIN "webhooks" w ON w."id" = d."webhookId"
      WHERE w."active" = ? AND d."deliveredAt" IS NULL
      AND d."id" = (SELECT MIN(h."id") FROM "webhook_deliveries" h WHERE h."webhookId" = d."webhookId" AND h."deliveredAt" IS NULL)
      AND d."nextAttemptAt" IS NOT NULL AND d."nextAttemptAt" <= ?
      AND (d."leasedUntil" IS NULL OR d."leasedUntil" <= ?)`, [true, now, now]);
    return rows.map(([id, webhookId, body, attempts, url, secret]) => ({
      id: num(id), webhookId: num(webhookId), body: body as string, attempts: num(attempts), url: url as string, secret: secret as string,
    }));
  }

  /** Takes the lease, sends, records the answer. True when the head moved on (delivered, or the webhook gave up). */
  private async attempt(delivery: Due): Promise<boolean> {
    const now = this.now();
    const lease = new Date(this.options.clock().getTime() + this.options.timeoutMs + LEASE_MARGIN_MS).toISOString();
    // The lease is taken only while the delivery still stands as `due` read it (the same attempts, still due): another
    // server may have taken, sent and recorded it since that read, leaving it unleased and its retry later (or the
    // webhook given up); a lease on "unleased" alone then sent it once more.
    const taken = await this.db.transaction((manager) => selectRows(manager,
      `UPDATE "webhook_deliveries" SET "leasedUntil" = ? WHERE "id" = ? AND "deliveredAt" IS NULL AND "attempts" = ?
        AND "nextAttemptAt" IS NOT NULL AND "nextAttemptAt" <= ? AND ("leasedUntil" IS NULL OR "leasedUntil" <= ?) RETURNING "id"`,
      [lease, delivery.id, delivery.attempts, now, now]));
    if (taken.length === 0) return false;
    const deliveryId = String(delivery.id);
    const result = await this.options.send({ url: delivery.url, secret: delivery.secret, deliveryId, body: delivery.body });
    const attempts = delivery.attempts + 1;
    const delivered = result.status !== null && result.status >= 200 && result.status < 300;
    const gaveUp = !delivered && attempts >= this.options.maxAttempts;
    const at = this.now();
    await this.db.transaction(async (manager) => {
      const recorded = await selectRows(manager,
        `UPDATE "webhook_deliveries" SET "attempts" = ?, "lastStatus" = ?, "lastError" = ?, "deliveredAt" = ?, "nextAttemptAt" = ?, "leasedUntil" = NULL
          WHERE "id" = ? AND "leasedUntil" = ? RETURNING "id"`,
        [
          attempts,
          result.status,
          result.status === null ? (result.error ?? 'no answer').slice(0, 300) : null,
          delivered ? at : null,
          delivered || gaveUp ? null : new Date(this.options.clock().getTime() + retryDelayMs(this.options, attempts)).toISOString(),
          delivery.id,
          lease,
        ]);
      if (gaveUp && recorded.length > 0) await runStatement(manager, `UPDATE "webhooks" SET "active" = ? WHERE "id" = ?`, [false, delivery.webhookId]);
    });
    this.options.onAttempt?.({ webhookId: delivery.webhookId, deliveryId, attempts, status: result.status, error: result.error, gaveUp });
    return delivered || gaveUp;
  }
}
