import { Arg, Ctx, FieldResolver, Int, Query, Resolver, Root } from 'type-graphql';
import type { Context } from '../context.js';
import { toItem, toTask } from '../mappers.js';
import { toSession } from '../session-mappers.js';
import { toConnection } from '../types/connection.type.js';
import { Session } from '../types/session.type.js';
import { StuckItem, StuckItemConnection } from '../types/stuck-item.type.js';

/** The inbox of stuck work: every BLOCKED or FAILED item, tasks and plans alike. */
@Resolver(() => StuckItem)
export class StuckItemResolver {
  @Query(() => StuckItemConnection, {
    description: 'Every live BLOCKED or FAILED item of every knowledge-base task and every session plan (running or finished), newest change first, with no cap: ' +
      'keyset-paged (first 1..200, default 50; after = pageInfo.endCursor) with the true totalCount. domain narrows it to that domain\'s tasks and those under it (plans have no domain).',
  })
  async stuckItems(
    @Ctx() ctx: Context,
    @Arg('domain', () => String, { nullable: true, description: 'Only tasks in this domain and those under it.' }) domain?: string | null,
    @Arg('first', () => Int, { nullable: true, description: 'How many: 1..200, default 50.' }) first?: number | null,
    @Arg('after', () => String, { nullable: true, description: 'pageInfo.endCursor of the page before.' }) after?: string | null,
  ): Promise<StuckItemConnection> {
    const page = await ctx.services.stuckItems.page({ domain, first, after });
    return toConnection(page, (row) => Object.assign(new StuckItem(), {
      item: toItem(row.item), task: toTask(row.task), since: new Date(row.since), setById: row.setBy, setByKnown: row.setByKnown,
    })) as StuckItemConnection;
  }

  @FieldResolver(() => Session, { nullable: true, description: 'The session that last set its state; null when a person did, or when setByKnown is false.' })
  async setBy(@Root() stuck: StuckItem, @Ctx() ctx: Context): Promise<Session | null> {
    if (!stuck.setById) return null;
    const row = await ctx.loaders.session.load(stuck.setById);
    return row ? toSession(row) : null;
  }
}
