import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { Context } from '../context.js';
import { Session } from '../types/session.type.js';
import { ItemChange, TaskEvent } from '../types/task-event.type.js';
import { sessionById } from './session.resolver.js';

/** The session behind a history row, so a reader sees its name, never its id. */
@Resolver(() => TaskEvent)
export class TaskEventSessionResolver {
  @FieldResolver(() => Session, { nullable: true, description: 'The agent session that made the change (its name to show people); null for a change made without one (a person on the dashboard) or by a session purged since.' })
  async session(@Root() event: TaskEvent, @Ctx() ctx: Context): Promise<Session | null> {
    return sessionById(event.sessionId, ctx);
  }
}

/** Claim changes name a holding session in from/to; this resolves it, so a reader sees its name. */
const HOLDER_IN: Readonly<Record<string, 'from' | 'to'>> = { CLAIMED: 'to', RELEASED: 'from', OVERRIDDEN: 'from' };

@Resolver(() => ItemChange)
export class ItemChangeSessionResolver {
  @FieldResolver(() => Session, { nullable: true, description: 'For CLAIMED, RELEASED and OVERRIDDEN: the session whose claim it is (the one from/to names by id), to show by name; null for other kinds.' })
  async session(@Root() change: ItemChange, @Ctx() ctx: Context): Promise<Session | null> {
    const side = HOLDER_IN[change.kind];
    return side ? sessionById(change[side], ctx) : null;
  }
}
