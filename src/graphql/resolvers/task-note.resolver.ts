import { Arg, Ctx, FieldResolver, ID, Mutation, Resolver, Root } from 'type-graphql';
import { taskNoteTexts } from '../../domain/briefs.js';
import type { Context } from '../context.js';
import { AddTaskNoteInput, EditTaskNoteInput } from '../inputs/knowledge.inputs.js';
import { dependenciesOf, itemsOfTaskWithIds, refsFor, renderedFor } from '../item-refs.js';
import { toItem, toTask, toTaskNote } from '../mappers.js';
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
  async items(@Root() note: TaskNote, @Ctx() ctx: Context): Promise<Item[]> {
    return (await itemsOfTaskWithIds(ctx, note.taskId, await ctx.loaders.noteItems.load(note.noteId))).map(toItem);
  }

  @FieldResolver(() => String, { nullable: true, description: 'The body with [[#id]] tokens rendered; null for a brief.' })
  async bodyText(@Root() note: TaskNote, @Ctx() ctx: Context): Promise<string | null> {
    if (note.body === null) return null;
    return renderedFor(ctx, note.taskId, note.body);
  }

  @FieldResolver(() => [ItemRef], { description: 'What each [[#id]] in this note names (dependsOn included), in order of first appearance.' })
  async refs(@Root() note: TaskNote, @Ctx() ctx: Context): Promise<ItemRef[]> {
    return refsFor(ctx, note.taskId, noteTexts(note));
  }
}

@Resolver(() => TaskNoteConnection)
export class TaskNoteConnectionResolver {
  @FieldResolver(() => [ItemRef], { description: 'What each [[#id]] on this page names.' })
  async refs(@Root() page: TaskNoteConnection, @Ctx() ctx: Context): Promise<ItemRef[]> {
    return refsFor(ctx, page.taskId, page.nodes.flatMap(noteTexts));
  }
}

/** Rendered fields of a brief: the same text with [[#id]] read as [#3 Label]. */
@Resolver(() => Brief)
export class BriefResolver {
  @FieldResolver(() => [Dependency], { description: 'The items these wait for; a deleted one stays, marked deleted.' })
  async dependsOn(@Root() brief: Brief, @Ctx() ctx: Context): Promise<Dependency[]> {
    return dependenciesOf(ctx, brief.taskId, brief.dependsOnIds);
  }

  @FieldResolver(() => String, { description: 'goal, rendered.' })
  async goalText(@Root() brief: Brief, @Ctx() ctx: Context): Promise<string> {
    return renderedFor(ctx, brief.taskId, brief.goal);
  }

  @FieldResolver(() => String, { description: 'context, rendered.' })
  async contextText(@Root() brief: Brief, @Ctx() ctx: Context): Promise<string> {
    return renderedFor(ctx, brief.taskId, brief.context);
  }

  @FieldResolver(() => String, { description: 'steps, rendered.' })
  async stepsText(@Root() brief: Brief, @Ctx() ctx: Context): Promise<string> {
    return renderedFor(ctx, brief.taskId, brief.steps);
  }

  @FieldResolver(() => String, { description: 'pitfalls, rendered.' })
  async pitfallsText(@Root() brief: Brief, @Ctx() ctx: Context): Promise<string> {
    return renderedFor(ctx, brief.taskId, brief.pitfalls);
  }

  @FieldResolver(() => String, { description: 'doneWhen, rendered.' })
  async doneWhenText(@Root() brief: Brief, @Ctx() ctx: Context): Promise<string> {
    return renderedFor(ctx, brief.taskId, brief.doneWhen);
  }

  @FieldResolver(() => String, { nullable: true, description: 'extraInfo, rendered.' })
  async extraInfoText(@Root() brief: Brief, @Ctx() ctx: Context): Promise<string | null> {
    if (brief.extraInfo === null) return null;
    return renderedFor(ctx, brief.taskId, brief.extraInfo);
  }
}
