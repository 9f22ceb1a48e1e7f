import { Arg, Ctx, FieldResolver, ID, Int, Query, Resolver, Root } from 'type-graphql';
import type { LoggedChange as LoggedChangeRow } from '../../services/kernel/changes/logged-change.js';
import type { Context } from '../context.js';
import { toTask } from '../mappers.js';
import { Task } from '../types/memory.type.js';
import { LoggedChange, LoggedChangeConnection } from '../types/logged-change.type.js';
import { Session } from '../types/session.type.js';
import { ItemChange } from '../types/task-event.type.js';
import { sessionById } from './session.resolver.js';

const toLoggedChange = (change: LoggedChangeRow): LoggedChange => ({ ...change, at: new Date(change.at) });

/** The change log as people read it: newest first, with names. */
@Resolver()
export class ActivityResolver {
  @Query(() => LoggedChangeConnection, {
    description:
      'The change log newest first, as a person reads what happened (the dashboard\'s activity stream): what was done to tasks, notes, plans and sessions, ' +
      'bookkeeping left out (claim renewals, reminders, turns); keyset-paged back in time (pass pageInfo.endCursor as after). Ask each change for its task, ' +
      'madeBySession and itemChanges to read it with names and from → to. For following changes as they happen, read changes (oldest first) instead.',
  })
  async activity(
    @Ctx() ctx: Context,
    @Arg('after', () => String, { nullable: true, description: 'pageInfo.endCursor of the previous page (an earlier LoggedChange.id): the changes before it.' }) after?: string | null,
    @Arg('domain', () => String, { nullable: true, description: 'Only changes of this domain and those under it (a plan has none).' }) domain?: string | null,
    @Arg('madeBy', () => ID, { nullable: true, description: 'Only changes this agent session made.' }) madeBy?: string | null,
    @Arg('byPerson', () => Boolean, { nullable: true, description: 'Only changes made without a session (people on the dashboard, a CLI).' }) byPerson?: boolean | null,
    @Arg('first', () => Int, { nullable: true, description: 'Page size, 1..200 (default 50).' }) first?: number | null,
  ): Promise<LoggedChangeConnection> {
    const page = await ctx.services.activity.page(after, { domain, madeBy, byPerson }, first);
    return { nodes: page.nodes.map(toLoggedChange), pageInfo: { hasNextPage: page.hasNextPage, endCursor: page.endCursor } };
  }
}

/** A logged change with names: its task, who made it, the session it was about, and what it did to items. */
@Resolver(() => LoggedChange)
export class LoggedChangeNamesResolver {
  @FieldResolver(() => Task, { nullable: true, description: 'The task the change was about, as it now stands (its title to show); null for none, or one deleted since.' })
  async task(@Root() change: LoggedChange, @Ctx() ctx: Context): Promise<Task | null> {
    if (change.taskId === null) return null;
    const row = await ctx.loaders.memory.load(change.taskId);
    return row && row.kind === 'TASK' ? toTask(row) : null;
  }

  @FieldResolver(() => Session, { nullable: true, description: 'The agent session that made the change (its name to show); null for a change made without one.' })
  async madeBySession(@Root() change: LoggedChange, @Ctx() ctx: Context): Promise<Session | null> {
    return sessionById(change.madeBy, ctx);
  }

  @FieldResolver(() => Session, { nullable: true, description: 'The session the change was about (the session itself, or the one whose plan changed); null for none.' })
  async session(@Root() change: LoggedChange, @Ctx() ctx: Context): Promise<Session | null> {
    return sessionById(change.sessionId, ctx);
  }

  @FieldResolver(() => [ItemChange], { description: "What the change did to the task's items, from → to, as its history row recorded it (for a change of one item, that item's); empty for a change with no history row." })
  async itemChanges(@Root() change: LoggedChange, @Ctx() ctx: Context): Promise<ItemChange[]> {
    const key = { ...change, at: change.at.toISOString() } as LoggedChangeRow;
    return (await ctx.loaders.loggedItemChanges.load(key)) as ItemChange[];
  }
}
