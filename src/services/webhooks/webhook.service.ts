import type { EntityManager } from 'typeorm';
import { WebhookDeliveryEntity, WebhookEntity } from '../../db/entities/index.js';
import { cleanDomain } from '../../domain/domains.js';
import { DomainError } from '../../domain/errors.js';
import { checkWebhookSecret, cleanWebhookUrl, mayChangeWebhook, seesWholeUrl, shownWebhookUrl } from '../../domain/webhooks.js';
import { newestChangeId } from '../kernel/changes/change-log.js';
import { num, runStatement, selectRows } from '../kernel/statements.js';
import type { Caller, Writer } from '../kernel/unit-of-work.js';
import { checkedAddresses } from './webhook-target.js';

/** Webhooks one token may have (all of them, with auth off): each is a dispatcher's work on every change. */
export const WEBHOOKS_MAX = 50;
/** Webhooks the server may have in all, whichever tokens made them: what `webhooks` lists at most, and the dispatcher's work bounded. */
export const WEBHOOKS_SERVER_MAX = 200;
/** The latest deliveries `Webhook.deliveries` answers: 1..50, 10 unless asked. */
const DELIVERIES_DEFAULT = 10;
export const DELIVERIES_MAX = 50;

/** A webhook as one caller may see it: the URL whole only for the token that created it (domain/webhooks.ts seesWholeUrl). */
export interface WebhookView {
  id: number;
  url: string;
  domain: string | null;
  active: boolean;
  createdAt: string;
  /** Whether the caller's token created it (always, with auth off): only then is url whole. */
  owned: boolean;
}

function viewOf(row: WebhookEntity, caller: Caller): WebhookView {
  const owned = seesWholeUrl(row.owner, caller.principal);
  return { id: row.id, url: shownWebhookUrl(row.url, owned), domain: row.domain, active: row.active, createdAt: row.createdAt, owned };
}

interface CreateWebhook {
  url: string;
  domain?: string | null;
  secret: string;
}

/** Creating, deleting and listing webhooks; the dispatcher (webhook-dispatcher.ts) delivers. */
export class WebhookService {
  private readonly createdListeners = new Set<() => void>();

  constructor(
    private readonly writer: Writer,
    private readonly reader: () => EntityManager,
    private readonly allowedHosts: () => ReadonlySet<string>,
  ) {}

  /**
   * A webhook receives the changes committed after it is created. Its target
   * is checked here (and again at every attempt): a host that resolves to a
   * loopback, private or link-local address is refused unless allowed.
   */
  async create(caller: Caller, input: CreateWebhook): Promise<WebhookView> {
    const url = cleanWebhookUrl(input.url);
    const secret = checkWebhookSecret(input.secret);
    const domain = input.domain === null || input.domain === undefined ? null : cleanDomain(input.domain);
    await checkedAddresses(url, this.allowedHosts());
    const owner = caller.principal ?? null;
    return this.writer.run(caller, async (uow) => {
      // The cap is per token, so one token filling it leaves every other token its own.
      const count = await uow.manager.count(WebhookEntity, owner === null ? {} : { where: { owner } });
      const all = owner === null ? count : await uow.manager.count(WebhookEntity);
      if (all >= WEBHOOKS_SERVER_MAX) {
        throw new DomainError(
          'TOO_LARGE',
          `The server has ${all} webhooks, the most it may have (${WEBHOOKS_SERVER_MAX}, whichever tokens made them). Delete one of yours (deleteWebhook), or give one webhook a wider domain.`,
          { limit: WEBHOOKS_SERVER_MAX, count: all },
        );
      }
      if (count >= WEBHOOKS_MAX) {
        throw new DomainError(
          'TOO_LARGE',
          `${owner === null ? 'There are' : 'This token has'} already ${count} webhooks, the most there may be (${WEBHOOKS_MAX}). Delete one (deleteWebhook), or give one webhook a wider domain.`,
          { limit: WEBHOOKS_MAX, count },
        );
      }
      const row = uow.manager.create(WebhookEntity, {
        url: url.href, domain, secret, active: true, createdAt: uow.now, position: await newestChangeId(uow.manager), sending: null, owner,
      });
      return viewOf(await uow.manager.save(row), caller);
    }).then((created) => {
      for (const listener of this.createdListeners) listener();
      return created;
    });
  }

  /** Called once each webhook this process creates or reactivates is committed (its dispatcher then looks for active webhooks at once). */
  onCreated(listener: () => void): () => void {
    this.createdListeners.add(listener);
    return () => this.createdListeners.delete(listener);
  }

  /** Deletes the webhook and its deliveries, with the token that created it; a delivery being sent is not recorded. */
  async delete(caller: Caller, id: string): Promise<boolean> {
    return this.writer.run(caller, async (uow) => {
      const row = await this.ownWebhook(uow.manager, caller, id, 'deleted');
      await uow.manager.delete(WebhookEntity, { id: row.id });
      // Not left to ON DELETE CASCADE: SQLite enforces it only with foreign keys on.
      await uow.manager.delete(WebhookDeliveryEntity, { webhookId: row.id });
      return true;
    });
  }

  /**
   * Starts an inactive webhook again from its cursor (the last change it
   * delivered), with the token that created it: the changes after it that
   * the log still holds are delivered in order, the ones its stopped delivery
   * carried first, under a new delivery id. Changes after the cursor that
   * the log pruned meanwhile cannot be sent: it resumes at the oldest change
   * kept. An active webhook is answered as it is.
   */
  async reactivate(caller: Caller, id: string): Promise<WebhookView> {
    return this.writer.run(caller, async (uow) => {
      const row = await this.ownWebhook(uow.manager, caller, id, 'reactivated');
      if (row.active) return viewOf(row, caller);
      const [[oldest]] = await selectRows(uow.manager, `SELECT MIN("id") FROM "changes"`, []);
      const position = oldest === null || oldest === undefined ? num(row.position) : Math.max(num(row.position), num(oldest) - 1);
      // Only while it is still inactive: two people reactivating at once move it once.
      await runStatement(uow.manager, `UPDATE "webhooks" SET "active" = ?, "sending" = NULL, "position" = ? WHERE "id" = ? AND "active" = ?`, [true, position, row.id, false]);
      return viewOf(Object.assign(row, { active: true, sending: null, position }), caller);
    }).then((view) => {
      for (const listener of this.createdListeners) listener();
      return view;
    });
  }

  /** The webhook `id` names, if the caller's token created it: NOT_FOUND or FORBIDDEN (saying it may only be `doneTo` by its owner) otherwise. */
  private async ownWebhook(manager: EntityManager, caller: Caller, id: string, doneTo: string): Promise<WebhookEntity> {
    const webhookId = /^\d{1,9}$/.test(id) ? Number(id) : null;
    const row = webhookId === null ? null : await manager.findOneBy(WebhookEntity, { id: webhookId });
    if (!row) throw new DomainError('NOT_FOUND', `No webhook has id ${JSON.stringify(id)}. List them with the webhooks query.`, { webhookId: id });
    if (!mayChangeWebhook(row.owner, caller.principal)) {
      throw new DomainError('FORBIDDEN', `Webhook ${row.id} was created with another bearer token; a webhook is ${doneTo} only with the token that created it. Create your own with createWebhook.`, { webhookId: String(row.id) });
    }
    return row;
  }

  /** Every webhook, oldest first, each as this caller may see it. */
  async list(caller: Caller): Promise<WebhookView[]> {
    return (await this.reader().find(WebhookEntity, { order: { id: 'ASC' } })).map((row) => viewOf(row, caller));
  }

  /** The latest `first` deliveries of each webhook, newest first: one statement whatever the number of webhooks. */
  async latestDeliveries(webhookIds: readonly number[], first: number | null | undefined): Promise<Map<number, WebhookDeliveryEntity[]>> {
    const size = first ?? DELIVERIES_DEFAULT;
    if (!Number.isInteger(size) || size < 1) throw new DomainError('BAD_USER_INPUT', `deliveries(first) must be a whole number from 1 to ${DELIVERIES_MAX}; got ${size}.`, { field: 'first', count: size, limit: DELIVERIES_MAX });
    if (size > DELIVERIES_MAX) throw new DomainError('TOO_LARGE', `deliveries(first) is at most ${DELIVERIES_MAX}; got ${size}. Ask for ${DELIVERIES_MAX} or fewer: older deliveries are not listed.`, { field: 'first', count: size, limit: DELIVERIES_MAX });
    const byWebhook = new Map<number, WebhookDeliveryEntity[]>(webhookIds.map((id) => [id, []]));
    if (webhookIds.length === 0) return byWebhook;
    const rows = await this.reader().createQueryBuilder(WebhookDeliveryEntity, 'd')
      .where(`d."id" IN (SELECT ranked."id" FROM (
        SELECT r."id", ROW_NUMBER() OVER (PARTITION BY r."webhookId" ORDER BY r."id" DESC) AS "rn"
        FROM "webhook_deliveries" r WHERE r."webhookId" IN (:...ids)) ranked WHERE ranked."rn" <= :size)`, { ids: [...webhookIds], size })
      .orderBy('d."id"', 'DESC')
      .getMany();
    for (const row of rows) byWebhook.get(row.webhookId)?.push(row);
    return byWebhook;
  }

  /**
   * The delivery each webhook gave up on: undelivered with no next attempt
   * (pending ones always have one); the newest, since a reactivated webhook
   * keeps the delivery it stopped at before.
   */
  async stoppedBy(webhookIds: readonly number[]): Promise<Map<number, WebhookDeliveryEntity>> {
    const stops = new Map<number, WebhookDeliveryEntity>();
    if (webhookIds.length === 0) return stops;
    const rows = await this.reader().createQueryBuilder(WebhookDeliveryEntity, 'd')
      .where('d."webhookId" IN (:...ids) AND d."deliveredAt" IS NULL AND d."nextAttemptAt" IS NULL', { ids: [...webhookIds] })
      .orderBy('d."id"', 'DESC')
      .getMany();
    for (const row of rows) if (!stops.has(row.webhookId)) stops.set(row.webhookId, row);
    return stops;
  }
}
