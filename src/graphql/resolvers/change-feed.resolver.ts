import { Arg, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { WebhookDeliveryEntity, WebhookEntity } from '../../db/entities/index.js';
import type { LoggedChange as LoggedChangeRow } from '../../services/changes/logged-change.js';
import type { Context } from '../context.js';
import { CreateWebhookInput } from '../inputs/webhook.inputs.js';
import { LoggedChange, LoggedChangeConnection, Webhook, WebhookDelivery } from '../types/logged-change.type.js';

const toLoggedChange = (change: LoggedChangeRow): LoggedChange => ({ ...change, at: new Date(change.at) });
const toDate = (value: string | null): Date | null => (value === null ? null : new Date(value));

function toWebhook(row: WebhookEntity): Webhook {
  return { id: String(row.id), url: row.url, domain: row.domain, active: row.active, createdAt: new Date(row.createdAt) };
}

function toDelivery(row: WebhookDeliveryEntity): WebhookDelivery {
  return {
    id: String(row.id),
    change: toLoggedChange((JSON.parse(row.body) as { change: LoggedChangeRow }).change),
    attempts: row.attempts,
    lastStatus: row.lastStatus,
    lastError: row.lastError ?? null,
    deliveredAt: toDate(row.deliveredAt),
    nextAttemptAt: toDate(row.nextAttemptAt),
  };
}

/** The public change feed and webhooks: both read the change log. */
@Resolver()
export class ChangeFeedResolver {
  @Query(() => LoggedChangeConnection, {
    description:
      'Changes after a cursor (an earlier LoggedChange.id or endCursor), oldest first, optionally of one domain and those under it: every committed change once, in commit order, ' +
      'whichever process made it. Without after, from the oldest change kept. A cursor whose following changes were pruned (TASKBASE_CHANGE_LOG_DAYS, _ROWS) is refused (BAD_USER_INPUT): resync.',
  })
  async changes(
    @Ctx() ctx: Context,
    @Arg('after', () => String, { nullable: true, description: 'An earlier LoggedChange.id or pageInfo.endCursor; omit to start from the oldest change kept.' }) after?: string | null,
    @Arg('domain', () => String, { nullable: true, description: 'Only changes of this domain and those under it.' }) domain?: string | null,
    @Arg('first', () => Int, { nullable: true, description: 'Page size, 1..200 (default 50).' }) first?: number | null,
  ): Promise<LoggedChangeConnection> {
    const page = await ctx.services.changeFeed.page(after, domain, first);
    return { nodes: page.nodes.map(toLoggedChange), pageInfo: { hasNextPage: page.hasNextPage, endCursor: page.endCursor } };
  }

  @Query(() => [Webhook], { description: 'Every webhook, oldest first, with its latest deliveries.' })
  async webhooks(@Ctx() ctx: Context): Promise<Webhook[]> {
    return (await ctx.services.webhooks.list()).map(toWebhook);
  }

  @Mutation(() => Webhook, {
    nullable: true,
    description:
      'Creates a webhook (needs a token with write access): each change committed from now on under its domain is POSTed to url as JSON, with X-Taskbase-Delivery, X-Taskbase-Timestamp ' +
      'and X-Taskbase-Signature (sha256=<hex HMAC-SHA256 of "<timestamp>.<body>" with the secret>); retried with backoff, in order, at least once.',
  })
  async createWebhook(@Ctx() ctx: Context, @Arg('input', () => CreateWebhookInput) input: CreateWebhookInput): Promise<Webhook> {
    return toWebhook(await ctx.services.webhooks.create(ctx.caller, input));
  }

  @Mutation(() => Boolean, { nullable: true, description: 'Deletes a webhook and its pending deliveries. NOT_FOUND when no webhook has the id.' })
  async deleteWebhook(@Ctx() ctx: Context, @Arg('id', () => ID) id: string): Promise<boolean> {
    return ctx.services.webhooks.delete(ctx.caller, id);
  }
}

/** Webhook.deliveries: the latest of every listed webhook in one statement (a per-request loader, keyed by first). */
@Resolver(() => Webhook)
export class WebhookDeliveriesResolver {
  @FieldResolver(() => [WebhookDelivery], { description: 'The latest deliveries, newest first: 1..50, default 10.' })
  async deliveries(@Root() webhook: Webhook, @Ctx() ctx: Context, @Arg('first', () => Int, { nullable: true }) first?: number | null): Promise<WebhookDelivery[]> {
    const rows = await ctx.loaders.webhookDeliveries.load({ webhookId: Number(webhook.id), first: first ?? null });
    return rows.map(toDelivery);
  }

  @FieldResolver(() => WebhookDelivery, {
    nullable: true,
    description: 'Why an inactive webhook stopped: the delivery that failed every attempt (its lastStatus or lastError says how). Null while the webhook is active.',
  })
  async stoppedBy(@Root() webhook: Webhook, @Ctx() ctx: Context): Promise<WebhookDelivery | null> {
    if (webhook.active) return null;
    const row = await ctx.loaders.webhookStops.load(Number(webhook.id));
    return row ? toDelivery(row) : null;
  }
}
