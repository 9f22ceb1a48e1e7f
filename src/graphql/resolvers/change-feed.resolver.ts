import { Arg, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { WebhookDeliveryEntity } from '../../db/entities/index.js';
import type { LoggedChange as LoggedChangeRow } from '../../services/kernel/changes/logged-change.js';
import type { WebhookView } from '../../services/webhooks/webhook.service.js';
import type { Context } from '../context.js';
import { CreateWebhookInput } from '../inputs/webhook.inputs.js';
import { LoggedChange, LoggedChangeConnection, Webhook, WebhookDelivery } from '../types/logged-change.type.js';

const toLoggedChange = (change: LoggedChangeRow): LoggedChange => ({ ...change, at: new Date(change.at) });
const toDate = (value: string | null): Date | null => (value === null ? null : new Date(value));

function toWebhook(view: WebhookView): Webhook {
  return { ...view, id: String(view.id), createdAt: new Date(view.createdAt) };
}

function toDelivery(row: WebhookDeliveryEntity): WebhookDelivery {
  return {
    id: String(row.id),
    change: row.firstChange === null ? null : toLoggedChange(JSON.parse(row.firstChange) as LoggedChangeRow),
    changeCount: row.changeCount,
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

  @Query(() => [Webhook], { description: 'Every webhook, oldest first, with its latest deliveries; each URL whole only for the token that created it (Webhook.url).' })
  async webhooks(@Ctx() ctx: Context): Promise<Webhook[]> {
    return (await ctx.services.webhooks.list(ctx.caller)).map(toWebhook);
  }

  @Mutation(() => Webhook, {
    nullable: true,
    description:
      'Creates a webhook owned by the calling token (needs write access; at most 50 per token, 200 on the server): the changes committed from now on under its domain are POSTed to url as JSON ' +
      '(an object with webhookId and changes, a list: several changes in one POST when they gather), in order, with X-Taskbase-Delivery, X-Taskbase-Timestamp and X-Taskbase-Signature ' +
      '(sha256=<hex HMAC-SHA256 of "<timestamp>.<delivery id>.<body>" with the secret>); retried with backoff, at least once.',
  })
  async createWebhook(@Ctx() ctx: Context, @Arg('input', () => CreateWebhookInput) input: CreateWebhookInput): Promise<Webhook> {
    return toWebhook(await ctx.services.webhooks.create(ctx.caller, input));
  }

  @Mutation(() => Webhook, {
    nullable: true,
    description:
      'Starts an inactive webhook (active false, stoppedBy says why) again from the last change it delivered, with the token that created it (FORBIDDEN otherwise; NOT_FOUND when no webhook has the id): ' +
      'every later change the change log still holds is POSTed, in order, beginning with those of the delivery it stopped at (under a new delivery id). ' +
      'Changes the log pruned meanwhile (TASKBASE_CHANGE_LOG_DAYS, _ROWS) are skipped. An active webhook is answered unchanged.',
  })
  async reactivateWebhook(@Ctx() ctx: Context, @Arg('id', () => ID, { description: 'The webhook\'s id (Webhook.id).' }) id: string): Promise<Webhook> {
    return toWebhook(await ctx.services.webhooks.reactivate(ctx.caller, id));
  }

  @Mutation(() => Boolean, { nullable: true, description: 'Deletes a webhook and its deliveries: only with the token that created it (FORBIDDEN otherwise). NOT_FOUND when no webhook has the id.' })
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
