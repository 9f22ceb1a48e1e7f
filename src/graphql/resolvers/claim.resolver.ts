import { Arg, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { CLAIM_WAIT_MAX, claimWaitMs, mayBeReady, stillBlocks } from '../../domain/claims.js';
import { claimNextOrWait } from '../../services/claims/claim-waits.js';
import type { ClaimEntity } from '../../db/entities/index.js';
import type { Context } from '../context.js';
import { ClaimItemInput, FinishItemInput } from '../inputs/claim.inputs.js';
import { dependencyOf, itemsById, refTargets } from '../item-refs.js';
import { toItem } from '../mappers.js';
import { after, afterBoth, type Maybe } from '../execution/settled-loader.js';
import { toSession } from '../session-mappers.js';
import { Claim } from '../types/claim.type.js';
import { Item } from '../types/item.type.js';
import { Session } from '../types/session.type.js';
import { Dependency } from '../types/task-note.type.js';

function toClaim(row: ClaimEntity): Claim {
  return Object.assign(new Claim(), { sessionId: row.sessionId, claimedAt: new Date(row.claimedAt), expiresAt: new Date(row.expiresAt) });
}

/** Claims and the ready queue: leases on items by agent sessions, and what is free to start. */
@Resolver(() => Claim)
export class ClaimResolver {
  @Query(() => [Item], { description: 'Open, unclaimed, ready items in a domain (and those under it), oldest task first, then list order. Items of archived tasks and of plans are never listed. first: 1..200, default 50.' })
  async ready(
    @Arg('domain') domain: string,
    @Ctx() ctx: Context,
    @Arg('first', () => Int, { nullable: true, description: 'How many: 1..200, default 50.' }) first?: number | null,
  ): Promise<Item[]> {
    ctx.showsLiveClaims = true;
    return (await ctx.services.claimReader.ready(domain, first)).map(toItem);
  }

  @Mutation(() => Item, {
    nullable: true,
    description: 'Claim an item for the calling session (x-session-id), before you start on it; claiming it again renews. CLAIMED (naming the holder and the expiry) when another session\'s claim holds. A session holds at most 20 live claims, and with auth on the sessions of one bearer token at most 200 between them (TOO_LARGE past either, naming the cap). The claim ends when it expires, when released, when the item is settled or deleted, and when the session finishes.',
  })
  async claimItem(@Arg('input') input: ClaimItemInput, @Ctx() ctx: Context): Promise<Item> {
    return toItem((await ctx.services.claims.claimItem(ctx.caller, input)).item);
  }

  @Mutation(() => Item, { nullable: true, description: 'Extend the calling session\'s claim by its ttl from now, while you work. NOT_CLAIMED when it does not hold one.' })
  async renewClaim(@Arg('input') input: ClaimItemInput, @Ctx() ctx: Context): Promise<Item> {
    return toItem((await ctx.services.claims.renewClaim(ctx.caller, input)).item);
  }

  @Mutation(() => Item, {
    nullable: true,
    description: 'Release the calling session\'s claim; a person (no session, a write token) may release any claim, and the history records it. Releasing an item no claim holds records nothing.',
  })
  async releaseClaim(@Arg('id', () => ID) id: string, @Ctx() ctx: Context): Promise<Item> {
    return toItem((await ctx.services.claims.releaseClaim(ctx.caller, id)).item);
  }

  @Mutation(() => Item, {
    nullable: true,
    description: 'Claim the first ready item of a domain for the calling session, atomically: two callers never get the same item. Null when nothing is ready. The same caps as claimItem (TOO_LARGE past 20 live claims for the session, 200 for its bearer token).',
  })
  async claimNext(
    @Arg('domain') domain: string,
    @Ctx() ctx: Context,
    @Arg('ttlSeconds', () => Int, { nullable: true, description: 'How long the claim holds without renewal: 1..3600 seconds (at most an hour), default 900; outside that range BAD_USER_INPUT, saying the range.' }) ttlSeconds?: number | null,
    @Arg('idempotencyKey', () => String, {
      nullable: true,
      description: 'Retrying with the same key (same session, domain and ttlSeconds) answers the item the first call claimed and claims nothing new, so a call whose outcome you did not hear (a dropped connection, a database restart) can be sent again. CLAIMED when that claim lapsed and another session has taken the item since; send a new key to claim another. A call that found nothing ready keeps no key. At most 200 characters; a UUID is a good key.',
    }) idempotencyKey?: string | null,
    @Arg('finish', () => FinishItemInput, {
      nullable: true,
      description: 'Settle the item you hold (DONE by default) and claim the next one in the same transaction: one call per item. Every rule of updateItem holds: when your claim was taken over it is refused with CLAIMED, and then nothing is claimed either. The item is settled even when nothing is ready next (the answer is then null).',
    }) finish?: FinishItemInput | null,
    @Arg('waitSeconds', () => Int, {
      nullable: true,
      description: `When nothing is ready, hold the call up to this many seconds (0..${CLAIM_WAIT_MAX}, default 0) and claim an item as soon as one becomes ready, instead of polling; null when the time is up. It waits whatever the domain holds, so an item of a task created meanwhile is taken too. A finish is settled once, at the start. Outside the range BAD_USER_INPUT, saying it.`,
    }) waitSeconds?: number | null,
  ): Promise<Item | null> {
    const waitMs = claimWaitMs(waitSeconds);
    const { claimed } = await claimNextOrWait(ctx.services, ctx.wakeups, ctx.caller, { domain, ttlSeconds, idempotencyKey, finish }, { waitMs, explain: false });
    return claimed ? toItem(claimed.item) : null;
  }

  @FieldResolver(() => Session, { description: 'The session holding the claim.' })
  async session(@Root() claim: Claim, @Ctx() ctx: Context): Promise<Session> {
    const row = await ctx.loaders.session.load(claim.sessionId);
    if (!row) throw new Error(`claim held by a session that does not exist: ${claim.sessionId}`);
    return toSession(row);
  }
}

/** An item's claim and dependencies. */
@Resolver(() => Item)
export class ItemClaimResolver {
  @FieldResolver(() => Claim, {
    nullable: true,
    description: "The live claim on this item, or null (never an expired one). Claims fence: while another session's claim holds the item, a session's state or text change to it is refused with CLAIMED (see UpdateItemInput.force); comments and links are accepted, and their answer names the holder here.",
  })
  claim(@Root() item: Item, @Ctx() ctx: Context): Maybe<Claim | null> {
    return after(ctx.loaders.claim.loadNow(item.itemId), (row) => {
      if (!row) return null;
      ctx.showsLiveClaims = true;
      return toClaim(row);
    });
  }

  @FieldResolver(() => [Dependency], { description: "Items this one waits for (from briefs' depends_on and its own after), with the reason given; each once, the earliest brief's reason." })
  blockedBy(@Root() item: Item, @Ctx() ctx: Context): Maybe<Dependency[]> {
    return afterBoth(ctx.loaders.blockers.loadNow(item.itemId), ctx.loaders.taskItems.loadNow(item.taskId), (edges, items) => {
      const targets = refTargets(items);
      return edges.flatMap((edge) => {
        const target = targets.get(String(edge.dependsOnId));
        return target ? [dependencyOf(target, edge.reason, targets)] : [];
      });
    });
  }

  @FieldResolver(() => [Item], { description: 'Items that wait for this one, in id order.' })
  blocks(@Root() item: Item, @Ctx() ctx: Context): Maybe<Item[]> {
    return afterBoth(ctx.loaders.waiters.loadNow(item.itemId), ctx.loaders.taskItems.loadNow(item.taskId), (waiters, items) => {
      const byId = itemsById(items);
      return waiters.flatMap((id) => (byId.has(id) ? [toItem(byId.get(id)!)] : []));
    });
  }

  @FieldResolver(() => Boolean, {
    description: 'True when every item it waits for is settled (DONE or DROPPED; a deleted one no longer counts) and the item itself is PENDING or IN_PROGRESS. A claim does not change it: ready (the query) also leaves claimed items out.',
  })
  ready(@Root() item: Item, @Ctx() ctx: Context): Maybe<boolean> {
    if (!mayBeReady(item)) return false;
    return afterBoth(ctx.loaders.blockers.loadNow(item.itemId), ctx.loaders.taskItems.loadNow(item.taskId), (edges, items) => {
      const byId = itemsById(items);
      return edges.every((edge) => !stillBlocks(byId.get(edge.dependsOnId)));
    });
  }
}

/** The claims a session holds. */
@Resolver(() => Session)
export class SessionClaimResolver {
  @FieldResolver(() => [Item], { description: 'Live claims held by this session, as the items claimed, oldest claim first (at most 20).' })
  async claims(@Root() session: Session, @Ctx() ctx: Context): Promise<Item[]> {
    const claimed = await ctx.loaders.sessionClaims.load(session.id);
    if (claimed.length) ctx.showsLiveClaims = true;
    return claimed.map(toItem);
  }
}
