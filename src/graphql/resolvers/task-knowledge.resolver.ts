import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Args, Ctx, FieldResolver, ID, Info, Int, Resolver, Root } from 'type-graphql';
import { ROW_CURSOR, decodeCursor, pageFrom, pageSize } from '../../domain/paging.js';
import { linksAsked, parseId } from '../../domain/task-rules.js';
import type { Context } from '../context.js';
import { PageArgs } from '../inputs/page.args.js';
import { dependenciesOf } from '../item-refs.js';
import { toComment, toMemory, toTaskNote } from '../mappers.js';
import { asksOnlyFor, nodeFieldsOf } from '../execution/selection.js';
import { after, type Maybe } from '../execution/settled-loader.js';
import { toConnection } from '../types/connection.type.js';
import { Item } from '../types/item.type.js';
import { Memory, Task } from '../types/memory.type.js';
import { CommentConnection } from '../types/comment.type.js';
import { Dependency, TaskNoteConnection } from '../types/task-note.type.js';

/** An item filter that names nothing matches nothing (an empty page), rather than everything. */
function itemFilter(item: string | null | undefined): number | undefined {
  if (item === null || item === undefined) return undefined;
  return parseId(item) ?? -1;
}

/**
 * The fields of a note or comment that read its task's items (refs, numbers
 * and rendered text): when a page with rows asks for one, the page waits for
 * the task's live items (the read its first row's field would start, in the
 * same batch as the task's item page when the query shows one), so each
 * row's field answers at once instead of with a promise per row.
 */
const READS_TASK_ITEMS = new Set(['refs', 'items', 'item', 'dependsOn', 'bodyText', 'goalText', 'contextText', 'stepsText', 'pitfallsText', 'doneWhenText', 'extraInfoText', 'reasonText']);

function readsTaskItems(info: GraphQLResolveInfo): boolean {
  for (const name of nodeFieldsOf(info)) if (READS_TASK_ITEMS.has(name)) return true;
  return false;
}

/** A task's notes and comments. */
@Resolver(() => Task)
export class TaskKnowledgeResolver {
  @FieldResolver(() => TaskNoteConnection, { description: 'Task notes: item briefs and whole-task notes, oldest first. With item, only the notes on that item.' })
  async notes(
    @Root() task: Task,
    @Ctx() ctx: Context,
    @Args(() => PageArgs) { first, after }: PageArgs,
    @Arg('item', () => ID, { nullable: true, description: 'Only the briefs on this item.' }) item?: string | null,
    @Info() info?: GraphQLResolveInfo,
  ): Promise<TaskNoteConnection> {
    const itemId = itemFilter(item);
    const page = itemId === undefined
      ? await ctx.loaders.taskNotes.load({ ownerId: task.taskId, first, after })
      : await ctx.services.taskNoteReader.taskNotes(task.taskId, itemId, first, after);
    if (page.nodes.length && info && readsTaskItems(info)) await ctx.loaders.taskItems.loadNow(task.taskId);
    return Object.assign(toConnection(page, toTaskNote), { taskId: task.taskId });
  }

  @FieldResolver(() => CommentConnection, {
    description: "Comments on the task itself, oldest first; with item, only that item's comments; with includeItems, the task's and all its items' comments.",
  })
  async comments(
    @Root() task: Task,
    @Ctx() ctx: Context,
    @Args(() => PageArgs) { first, after }: PageArgs,
    @Arg('item', () => ID, { nullable: true, description: "Only this item's comments." }) item?: string | null,
    @Arg('includeItems', () => Boolean, { nullable: true, defaultValue: false, description: "Without item: also list comments on the task's items." }) includeItems: boolean | null = false,
    @Info() info?: GraphQLResolveInfo,
  ): Promise<CommentConnection> {
    const itemId = itemFilter(item);
    const page = itemId === undefined
      ? await ctx.loaders.taskComments.load({ ownerId: task.taskId, first, after, includeItems: includeItems ?? false })
      : await ctx.services.commentReader.comments({ taskId: task.taskId, itemId, first, after });
    if (page.nodes.length && info && readsTaskItems(info)) await ctx.loaders.taskItems.loadNow(task.taskId);
    return Object.assign(toConnection(page, toComment), { taskId: task.taskId });
  }
}

/** An item's comments, briefs, linked memories and dependencies. */
@Resolver(() => Item)
export class ItemKnowledgeResolver {
  // Batched per request (one set of statements for every item of a list), not one query per item.
  @FieldResolver(() => CommentConnection, { description: 'Comments on this item, oldest first.' })
  async comments(
    @Root() item: Item,
    @Ctx() ctx: Context,
    @Args(() => PageArgs) { first, after }: PageArgs,
    @Info() info: GraphQLResolveInfo,
  ): Promise<CommentConnection> {
    if (asksOnlyFor(info, ['totalCount'])) {
      // A checklist showing each item's comment count reads the counts of the page's items at once, not a page per item.
      const size = pageSize(first);
      decodeCursor(after, ROW_CURSOR); // a cursor of another list is refused here too, though only the count is read
      const totalCount = (await ctx.loaders.itemFacts.load(item.itemId)).comments;
      return Object.assign(toConnection(pageFrom([], size, () => [], totalCount), toComment), { taskId: item.taskId });
    }
    const page = await ctx.loaders.itemComments.load({ ownerId: item.itemId, first, after });
    return Object.assign(toConnection(page, toComment), { taskId: item.taskId });
  }

  @FieldResolver(() => TaskNoteConnection, { description: 'Briefs on this item, oldest first.' })
  async notes(
    @Root() item: Item,
    @Ctx() ctx: Context,
    @Args(() => PageArgs) { first, after }: PageArgs,
    @Info() info: GraphQLResolveInfo,
  ): Promise<TaskNoteConnection> {
    if (asksOnlyFor(info, ['totalCount'])) {
      // A checklist showing each item's brief count reads the counts alone, as for comments.
      const size = pageSize(first);
      decodeCursor(after, ROW_CURSOR);
      const totalCount = (await ctx.loaders.itemFacts.load(item.itemId)).briefs;
      return Object.assign(toConnection(pageFrom([], size, () => [], totalCount), toTaskNote), { taskId: item.taskId });
    }
    const page = await ctx.loaders.itemNotes.load({ ownerId: item.itemId, first, after });
    return Object.assign(toConnection(page, toTaskNote), { taskId: item.taskId });
  }

  @FieldResolver(() => [Memory], { description: 'Memories linked to this item (related), oldest link first; at most 100.' })
  related(
    @Root() item: Item,
    @Ctx() ctx: Context,
    @Arg('first', () => Int, {
      nullable: true,
      description: 'Only the first this many links, 0..100 (default: all of them, at most 100). A query is planned with this many per item: '
        + 'ask for fewer to keep a long list of items, with the linked notes\' bodies, within what one query may plan (TOO_LARGE past it).',
    }) first?: number | null,
  ): Maybe<Memory[]> {
    const asked = linksAsked(first);
    return after(ctx.loaders.related.loadNow(item.itemId), (rows) => (asked < rows.length ? rows.slice(0, asked) : rows).map(toMemory));
  }

  @FieldResolver(() => [Dependency], { description: "The items this one waits for, each once: its briefs' dependsOn (oldest brief first, with the reason given), then those its own after names (updateItem)." })
  dependsOn(@Root() item: Item, @Ctx() ctx: Context): Maybe<Dependency[]> {
    // Each dependency comes once (its first mention) from the database, which reads the waits' edges.
    return after(ctx.loaders.itemFacts.load(item.itemId), (facts) => dependenciesOf(ctx, item.taskId, facts.dependsOn));
  }
}
