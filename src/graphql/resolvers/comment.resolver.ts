import { Arg, Ctx, FieldResolver, Mutation, Resolver, Root } from 'type-graphql';
import type { Context } from '../context.js';
import { AddCommentInput } from '../inputs/knowledge.inputs.js';
import { refsFor, renderedFor, targetsOf } from '../item-refs.js';
import { toComment } from '../mappers.js';
import { ItemRef } from '../types/common.type.js';
import { Comment, CommentConnection } from '../types/comment.type.js';

@Resolver(() => Comment)
export class CommentResolver {
  @Mutation(() => Comment, { nullable: true, description: 'Comments on a task, or on one of its items (item).' })
  async addComment(@Arg('input') input: AddCommentInput, @Ctx() ctx: Context): Promise<Comment> {
    return toComment((await ctx.services.comments.addComment(ctx.caller, input)).comment);
  }

  @FieldResolver(() => String, { description: 'The body with [[#id]] tokens rendered.' })
  async bodyText(@Root() comment: Comment, @Ctx() ctx: Context): Promise<string> {
    return renderedFor(ctx, comment.taskId, comment.body);
  }

  @FieldResolver(() => ItemRef, { nullable: true, description: 'The item it is on, if any.' })
  async item(@Root() comment: Comment, @Ctx() ctx: Context): Promise<ItemRef | null> {
    if (comment.itemId === null) return null;
    const target = (await targetsOf(ctx, comment.taskId, [String(comment.itemId)])).get(String(comment.itemId));
    return target ? { ...target } : null;
  }

  @FieldResolver(() => [ItemRef], { description: 'What each [[#id]] in the body names, in order of first appearance.' })
  async refs(@Root() comment: Comment, @Ctx() ctx: Context): Promise<ItemRef[]> {
    return refsFor(ctx, comment.taskId, [comment.body]);
  }
}

@Resolver(() => CommentConnection)
export class CommentConnectionResolver {
  @FieldResolver(() => [ItemRef], { description: 'What each [[#id]] on this page names.' })
  async refs(@Root() page: CommentConnection, @Ctx() ctx: Context): Promise<ItemRef[]> {
    return refsFor(ctx, page.taskId, page.nodes.map((comment) => comment.body));
  }
}
