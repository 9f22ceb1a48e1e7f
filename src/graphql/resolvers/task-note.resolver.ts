import { Arg, Ctx, FieldResolver, ID, Mutation, Resolver, Root } from 'type-graphql';
import { taskNoteTexts } from '../../domain/briefs.js';
import type { Context } from '../context.js';
import { AddTaskNoteInput, EditTaskNoteInput } from '../inputs/knowledge.inputs.js';
import { dependenciesOf, itemsOfTaskWithIds, refsFor, renderedFor } from '../item-refs.js';
import { toItem, toTask, toTaskNote } from '../mappers.js';
import { after, type Maybe } from '../execution/settled-loader.js';
import { ItemRef } from '../types/common.type.js';
import { Item } from '../types/item.type.js';
import { Task } from '../types/memory.type.js';
import { Brief, Dependency, TaskNote, TaskNoteConnection } from '../types/task-note.type.js';

/** Every free text of a note, dependencies written as tokens, in reading order. */
function noteTexts(note: TaskNote): string[] {
  return taskNoteTexts({ body: note.body, brief: note.brief && { ...note.brief, dependsOn: note.brief.dependsOnIds } });
}

@Resolver(() => TaskNote)
export class TaskNoteResolver {
  @Mutation(() => TaskNote, { nullable: true, description: 'Adds a brief on items (items + brief) or a note on the whole task (body).' })
  async addTaskNote(@Arg('input') input: AddTaskNoteInput, @Ctx() ctx: Context): Promise<TaskNote> {
    return toTaskNote((await ctx.services.taskNotes.addTaskNote(ctx.caller, input)).note);
  }

  @Mutation(() => TaskNote, { nullable: true, description: "Changes a task note's title, body (whole-task note) or brief (note on items)." })
  async editTaskNote(@Arg('input') input: EditTaskNoteInput, @Ctx() ctx: Context): Promise<TaskNote> {
    return toTaskNote(await ctx.services.taskNotes.editTaskNote(ctx.caller, input));
  }

  @Mutation(() => Task, { nullable: true, description: 'Deletes a task note; returns its task.' })
  async deleteTaskNote(@Arg('id', () => ID) id: string, @Ctx() ctx: Context): Promise<Task> {
    return toTask(await ctx.services.taskNotes.deleteTaskNote(ctx.caller, id));
  }

  @FieldResolver(() => [Item], { description: 'The items it briefs; empty for a note on the whole task.' })
  items(@Root() note: TaskNote, @Ctx() ctx: Context): Maybe<Item[]> {
    return after(ctx.loaders.noteItems.loadNow(note.noteId), (ids) => after(itemsOfTaskWithIds(ctx, note.taskId, ids), (items) => items.map(toItem)));
  }

  @FieldResolver(() => String, { nullable: true, description: 'The body with [[#id]] tokens rendered; null for a brief.' })
  bodyText(@Root() note: TaskNote, @Ctx() ctx: Context): Maybe<string | null> {
    if (note.body === null) return null;
    return renderedFor(ctx, note.taskId, note.body);
  }

  @FieldResolver(() => [ItemRef], { description: 'What each [[#id]] in this note names (dependsOn included), in order of first appearance.' })
  refs(@Root() note: TaskNote, @Ctx() ctx: Context): Maybe<ItemRef[]> {
    return refsFor(ctx, note.taskId, noteTexts(note));
  }
}

@Resolver(() => TaskNoteConnection)
export class TaskNoteConnectionResolver {
  @FieldResolver(() => [ItemRef], { description: 'What each [[#id]] on this page names.' })
  refs(@Root() page: TaskNoteConnection, @Ctx() ctx: Context): Maybe<ItemRef[]> {
    return refsFor(ctx, page.taskId, page.nodes.flatMap(noteTexts));
  }
}

/** Rendered fields of a brief: the same text with [[#id]] read as [#3 Label]. */
@Resolver(() => Brief)
export class BriefResolver {
  @FieldResolver(() => [Dependency], { description: 'The items these wait for; a deleted one stays, marked deleted.' })
  dependsOn(@Root() brief: Brief, @Ctx() ctx: Context): Maybe<Dependency[]> {
    return dependenciesOf(ctx, brief.taskId, brief.dependsOnIds);
  }

  @FieldResolver(() => String, { description: 'goal, rendered.' })
  goalText(@Root() brief: Brief, @Ctx() ctx: Context): Maybe<string> {
    return renderedFor(ctx, brief.taskId, brief.goal);
  }

  @FieldResolver(() => String, { description: 'context, rendered.' })
  contextText(@Root() brief: Brief, @Ctx() ctx: Context): Maybe<string> {
    return renderedFor(ctx, brief.taskId, brief.context);
  }

  @FieldResolver(() => String, { description: 'steps, rendered.' })
  stepsText(@Root() brief: Brief, @Ctx() ctx: Context): Maybe<string> {
    return renderedFor(ctx, brief.taskId, brief.steps);
  }

  @FieldResolver(() => String, { description: 'pitfalls, rendered.' })
  pitfallsText(@Root() brief: Brief, @Ctx() ctx: Context): Maybe<string> {
    return renderedFor(ctx, brief.taskId, brief.pitfalls);
  }

  @FieldResolver(() => String, { description: 'doneWhen, rendered.' })
  doneWhenText(@Root() brief: Brief, @Ctx() ctx: Context): Maybe<string> {
    return renderedFor(ctx, brief.taskId, brief.doneWhen);
  }

  @FieldResolver(() => String, { nullable: true, description: 'extraInfo, rendered.' })
  extraInfoText(@Root() brief: Brief, @Ctx() ctx: Context): Maybe<string | null> {
    if (brief.extraInfo === null) return null;
    return renderedFor(ctx, brief.taskId, brief.extraInfo);
  }
}
