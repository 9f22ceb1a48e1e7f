import { Arg, Ctx, FieldResolver, Mutation, Resolver, Root } from 'type-graphql';
import type { Context } from '../context.js';
import { AddCommentInput } from '../inputs/knowledge.inputs.js';
import { refsFor, renderedFor, targetsOf } from '../item-refs.js';
import { toComment } from '../mappers.js';
import { after, type Maybe } from '../execution/settled-loader.js';
import { ItemRef } from '../types/common.type.js';
import { Comment, CommentConnection } from '../types/comment.type.js';

@Resolver(() => Comment)
export class CommentResolver {
  @Mutation(() => Comment, { nullable: true, description: 'Comments on a task, or on one of its items (item).' })
  async addComment(@Arg('input') input: AddCommentInput, @Ctx() ctx: Context): Promise<Comment> {
    return toComment((await ctx.services.comments.addComment(ctx.caller, input)).comment);
  }

  @FieldResolver(() => String, { description: 'The body with [[#id]] tokens rendered.' })
  bodyText(@Root() comment: Comment, @Ctx() ctx: Context): Maybe<string> {
    return renderedFor(ctx, comment.taskId, comment.body);
  }

  @FieldResolver(() => ItemRef, { nullable: true, description: 'The item it is on, if any.' })
  item(@Root() comment: Comment, @Ctx() ctx: Context): Maybe<ItemRef | null> {
    if (comment.itemId === null) return null;
    const id = String(comment.itemId);
    return after(targetsOf(ctx, comment.taskId, [id]), (targets) => {
      const target = targets.get(id);
      return target ?? null;
    });
  }

  @FieldResolver(() => [ItemRef], { description: 'What each [[#id]] in the body names, in order of first appearance.' })
  refs(@Root() comment: Comment, @Ctx() ctx: Context): Maybe<ItemRef[]> {
    return refsFor(ctx, comment.taskId, [comment.body]);
  }
}

@Resolver(() => CommentConnection)
export class CommentConnectionResolver {
  @FieldResolver(() => [ItemRef], { description: 'What each [[#id]] on this page names.' })
  refs(@Root() page: CommentConnection, @Ctx() ctx: Context): Maybe<ItemRef[]> {
    return refsFor(ctx, page.taskId, page.nodes.map((comment) => comment.body));
  }
}
