import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { SteeringMark } from '../../services/sessions/steering-reader.js';
import type { Context } from '../context.js';
import { Item } from '../types/item.type.js';
import { Session } from '../types/session.type.js';
import { Steering } from '../types/steering.type.js';
import { sessionById } from './session.resolver.js';

function toSteering(mark: SteeringMark | null): Steering | null {
  if (!mark) return null;
  return {
    sessionId: mark.sessionId,
    at: new Date(mark.at),
    action: mark.action,
    itemId: mark.itemId === null ? null : String(mark.itemId),
    itemText: mark.itemText,
    seen: mark.seen,
    seenAt: mark.seenAt === null ? null : new Date(mark.seenAt),
  };
}

/** Steering people can see: whether the agent has been told of their change. */
@Resolver(() => Steering)
export class SteeringResolver {
  @FieldResolver(() => Session, { nullable: true, description: 'The agent the change steers (its name to show); null for a session purged since.' })
  async session(@Root() steering: Steering, @Ctx() ctx: Context): Promise<Session | null> {
    return sessionById(steering.sessionId, ctx);
  }
}

@Resolver(() => Session)
export class SessionSteeringResolver {
  @FieldResolver(() => Steering, {
    nullable: true,
    description: "A person's latest change to this session's plan or to an item it holds a claim on, and whether its agent has been told of it; null when no person has changed either.",
  })
  async steering(@Root() session: Session, @Ctx() ctx: Context): Promise<Steering | null> {
    return toSteering(await ctx.loaders.sessionSteering.load(session.id));
  }
}

@Resolver(() => Item)
export class ItemSteeringResolver {
  @FieldResolver(() => Steering, {
    nullable: true,
    description: "A person's latest change to this item while it was an agent's (a step of its plan, or an item it holds a claim on), and whether that agent has been told of it; null otherwise.",
  })
  async steering(@Root() item: Item, @Ctx() ctx: Context): Promise<Steering | null> {
    return toSteering(await ctx.loaders.itemSteering.load(item.itemId));
  }
}
