import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Args, Ctx, FieldResolver, ID, Info, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { taskNotFound } from '../../domain/task-rules.js';
import type { Context } from '../context.js';
import { keepWritten } from '../execution/fresh-after-mutation.js';
import { PageArgs } from '../inputs/page.args.js';
import { AddItemsInput, CreateTaskInput, DropRestAndArchiveInput, EditTaskInput, MoveItemInput, UpdateItemInput } from '../inputs/task.inputs.js';
import { itemPage, readForItemFields } from '../item-pages.js';
import { refsFor, refTargets, renderedFor } from '../item-refs.js';
import { toItem, toMemory, toTask, toTaskEvent } from '../mappers.js';
import { after, type Maybe } from '../execution/settled-loader.js';
import { ItemRef } from '../types/common.type.js';
import { toConnection } from '../types/connection.type.js';
import { ItemConnection, TaskEventConnection } from '../types/connections.type.js';
import { Item } from '../types/item.type.js';
import { Memory, Task } from '../types/memory.type.js';
import { Session } from '../types/session.type.js';
import { toSession } from '../session-mappers.js';
import { CreateTaskPayload, ItemsPayload } from '../types/payloads.type.js';

/** Knowledge-base tasks: reads, mutations, and the fields derived from a task's items. */
@Resolver(() => Task)
export class TaskResolver {
  @Query(() => Memory, { nullable: true, description: 'A note or task by id; null when none has it.' })
  async memory(@Arg('id', () => ID) id: string, @Ctx() ctx: Context): Promise<Memory | null> {
    const row = await ctx.loaders.memory.load(id);
    return row ? toMemory(row) : null;
  }

  @Query(() => Task, { nullable: true, description: 'A task (or a session\'s plan) by id; null when none has it.' })
  async task(@Arg('id', () => ID) id: string, @Ctx() ctx: Context): Promise<Task | null> {
    const row = await ctx.loaders.memory.load(id);
    return row?.kind === 'TASK' ? toTask(row) : null;
  }

  @Query(() => Item, { nullable: true, description: 'An item by id, deleted ones included; null when none has it.' })
  async item(@Arg('id', () => ID) id: string, @Ctx() ctx: Context): Promise<Item | null> {
    const row = await ctx.loaders.item.load(id);
    return row ? toItem(row) : null;
  }

  @Mutation(() => CreateTaskPayload, { nullable: true, description: 'Opens a task: title, goal, domain and its items (a list, or one label per line).' })
  async createTask(@Arg('input') input: CreateTaskInput, @Ctx() ctx: Context): Promise<CreateTaskPayload> {
    const { task, items } = await ctx.services.tasks.createTask(ctx.caller, input);
    return { task: toTask(task), items: items.map(toItem) };
  }

  @Mutation(() => Task, { nullable: true, description: 'Corrects a task in place: title, goal or domain.' })
  async editTask(@Arg('input') input: EditTaskInput, @Ctx() ctx: Context): Promise<Task> {
    return toTask((await ctx.services.tasks.editTask(ctx.caller, input)).task);
  }

  @Mutation(() => Task, {
    nullable: true,
    description: 'Archives an open knowledge-base task in one step (an addition to the contract): every item not DONE or DROPPED (To do, Doing, Blocked, Failed) becomes DROPPED with reason as its note, ' +
      'their claims end, and the task is archived; one transaction, one history row (ITEM_STATE naming each item from → to) and one change. A task with nothing open is returned unchanged and records nothing. ' +
      'A session\'s plan is refused (BAD_USER_INPUT); so is a session\'s drop of an item another session\'s live claim holds (CLAIMED).',
  })
  async dropRestAndArchive(@Arg('input') input: DropRestAndArchiveInput, @Ctx() ctx: Context): Promise<Task> {
    const { task } = await ctx.services.tasks.dropRestAndArchive(ctx.caller, input);
    keepWritten(ctx, task);
    return toTask(task);
  }

  @Mutation(() => Item, { nullable: true, description: "Changes an item's state or label, comments on it, links memories to it, or sets the items it waits for (after). Claims fence: a session's state or text change to an item another session's live claim holds is refused with CLAIMED, naming the holder and for how long (input.force overrides it, recorded)." })
  async updateItem(@Arg('input') input: UpdateItemInput, @Ctx() ctx: Context): Promise<Item> {
    const { item, view } = await ctx.services.tasks.updateItem(ctx.caller, input);
    keepWritten(ctx, view.task);
    return toItem(item);
  }

  @Mutation(() => Task, { nullable: true, description: 'A delete stands alone: no other change in the same call. No other item\'s id or number is reused.' })
  async deleteItem(@Arg('id', () => ID) id: string, @Ctx() ctx: Context): Promise<Task> {
    return toTask((await ctx.services.tasks.deleteItem(ctx.caller, id)).task);
  }

  @Mutation(() => Item, {
    nullable: true,
    description: 'Brings a deleted item back where it stood, with its id, state, note and comments: the undo of deleteItem (an addition to the contract). DUPLICATE_TEXT when a live item has its label now; restoring an item that is not deleted records nothing. Recorded in history as ITEM_RESTORED.',
  })
  async restoreItem(
    @Arg('id', () => ID, { description: 'The deleted item.' }) id: string,
    @Ctx() ctx: Context,
    @Arg('expectedVersion', () => Int, { nullable: true, description: "The task's version the undo was based on; VERSION_CONFLICT when it moved on." }) expectedVersion?: number | null,
  ): Promise<Item> {
    return toItem(await ctx.services.tasks.restoreItem(ctx.caller, { id, expectedVersion }));
  }

  @Mutation(() => ItemsPayload, { nullable: true, description: 'Appends (or inserts) items; reopens a closed task.' })
  async addItems(@Arg('input') input: AddItemsInput, @Ctx() ctx: Context): Promise<ItemsPayload> {
    const { task, items } = await ctx.services.tasks.addItems(ctx.caller, input);
    return { task: toTask(task), items: items.map(toItem) };
  }

  @Mutation(() => Task, { nullable: true, description: 'Moves an item after another (first when after is null); ids stay, numbers follow.' })
  async moveItem(@Arg('input') input: MoveItemInput, @Ctx() ctx: Context): Promise<Task> {
    return toTask(await ctx.services.tasks.moveItem(ctx.caller, input));
  }

  @FieldResolver(() => String, { description: "The goal with every [[#id]] token rendered as [#3 Label], or [deleted item: Label] once deleted." })
  goalText(@Root() task: Task, @Ctx() ctx: Context): Maybe<string> {
    return renderedFor(ctx, task.taskId, task.goal);
  }

  @FieldResolver(() => [ItemRef], { description: 'What each [[#id]] in the goal names now, in order of first appearance.' })
  goalRefs(@Root() task: Task, @Ctx() ctx: Context): Maybe<ItemRef[]> {
    return refsFor(ctx, task.taskId, [task.goal]);
  }

  @FieldResolver(() => ItemConnection, { description: 'Live items in list order; includeDeleted adds deleted ones where they stood (number null).' })
  async items(
    @Root() task: Task,
    @Ctx() ctx: Context,
    @Args(() => PageArgs) { first, after }: PageArgs,
    @Arg('includeDeleted', () => Boolean, { nullable: true, defaultValue: false, description: 'Also list deleted items.' }) includeDeleted: boolean | null = false,
    @Info() info: GraphQLResolveInfo,
  ): Promise<ItemConnection> {
    const page = await itemPage(ctx, task.taskId, first, after, includeDeleted ?? false);
    await readForItemFields(ctx, info, page.nodes);
    return toConnection(page, toItem);
  }

  @FieldResolver(() => [Session], {
    description: 'The sessions (agents) holding a live claim on one of its items now, earliest claim first; empty when none. ' +
      'A page of tasks reads them in one statement, and their sessions in one more, so a domain\'s table can sort and group by who holds what.',
  })
  async claimedBy(@Root() task: Task, @Ctx() ctx: Context): Promise<Session[]> {
    const ids = await ctx.loaders.taskClaimHolders.load(task.taskId);
    const rows = await ctx.loaders.session.loadMany(ids);
    return rows.flatMap((row) => (row && !(row instanceof Error) ? [toSession(row)] : []));
  }

  @FieldResolver(() => [Item], { description: 'Items now IN_PROGRESS, in list order.' })
  async inProgress(@Root() task: Task, @Ctx() ctx: Context): Promise<Item[]> {
    const live = await ctx.loaders.taskItems.load(task.taskId);
    return live.filter((item) => item.state === 'IN_PROGRESS').map(toItem);
  }

  @FieldResolver(() => TaskEventConnection, { description: 'Every recorded change, oldest first (newest first with newestFirst).' })
  async history(
    @Root() task: Task,
    @Ctx() ctx: Context,
    @Args(() => PageArgs) { first, after }: PageArgs,
    @Arg('newestFirst', () => Boolean, { nullable: true, defaultValue: false, description: 'Newest change first, as a reader of recent activity wants it; the cursor then pages back in time.' }) newestFirst: boolean | null = false,
    @Arg('actions', () => [String], { nullable: true, description: 'Only changes with one of these actions (TaskEvent.action), e.g. ["ITEM_STATE"]; totalCount counts these.' }) actions?: string[] | null,
    @Arg('sessionId', () => ID, { nullable: true, description: 'Only changes this agent session made; totalCount counts these.' }) sessionId?: string | null,
    @Arg('byPerson', () => Boolean, { nullable: true, description: 'Only changes made without a session (a person on the dashboard, a CLI); totalCount counts these.' }) byPerson?: boolean | null,
  ): Promise<TaskEventConnection> {
    const page = await ctx.services.taskReader.history(task.taskId, first, after, newestFirst ? 'DESC' : 'ASC', { actions, sessionId, byPerson });
    return toConnection(page, toTaskEvent);
  }
}

/** Fields of an item derived from its task. */
@Resolver(() => Item)
export class ItemResolver {
  @FieldResolver(() => Int, { nullable: true, description: "Current place among the task's live items (1-based); null once deleted." })
  number(@Root() item: Item, @Ctx() ctx: Context): Maybe<number | null> {
    return after(ctx.loaders.taskItems.loadNow(item.taskId), (items) => refTargets(items).get(item.id)?.number ?? null);
  }

  @FieldResolver(() => Task, { description: 'The task or plan the item belongs to.' })
  async task(@Root() item: Item, @Ctx() ctx: Context): Promise<Task> {
    const row = await ctx.loaders.memory.load(String(item.taskId));
    if (!row) throw taskNotFound(String(item.taskId));
    return toTask(row);
  }
}

