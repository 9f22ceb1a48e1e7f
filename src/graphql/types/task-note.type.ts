import { Field, ID, ObjectType } from 'type-graphql';
import { ItemRef } from './common.type.js';
import { Connection } from './connection.type.js';

@ObjectType({ simpleResolvers: true, description: 'An item a brief waits for.' })
export class Dependency {
  @Field(() => ItemRef, { description: 'The item waited for, as it reads now (marked deleted once deleted).' })
  item: ItemRef;

  @Field(() => String, { nullable: true, description: 'Why, if given, [[#id]] tokens kept.' })
  reason: string | null;

  @Field(() => String, { nullable: true, description: 'The reason with [[#id]] tokens rendered.' })
  reasonText: string | null;
}

@ObjectType({ simpleResolvers: true, description: 'A note on items, field by field. The raw fields keep [[#id]] tokens; the ...Text fields render them.' })
export class Brief {
  /** The task, for rendering. */
  taskId: number;
  /** Item ids waited for, with reasons, as stored. */
  dependsOnIds: { item: string; reason: string | null }[];

  @Field({ description: 'What the briefed items achieve.' })
  goal: string;

  @Field({ description: 'What to know first: where things are, what was decided.' })
  context: string;

  @Field({ description: 'How to do it.' })
  steps: string;

  @Field({ description: 'What goes wrong easily.' })
  pitfalls: string;

  @Field({ description: 'When the items count as done.' })
  doneWhen: string;

  @Field(() => String, { nullable: true, description: 'Anything else; optional.' })
  extraInfo: string | null;
}

@ObjectType({ simpleResolvers: true, description: 'Belongs to its task, never to the memory set: search never returns it.' })
export class TaskNote {
  noteId: number;
  taskId: number;

  @Field(() => ID, { description: 'Pass to editTaskNote or deleteTaskNote.' })
  id: string;

  @Field({ description: 'A short label; no [[#id]] tokens.' })
  title: string;

  @Field(() => String, { nullable: true, description: 'Set for a note on the whole task.' })
  body: string | null;

  @Field(() => Brief, { nullable: true, description: 'Set for a note on items.' })
  brief: Brief | null;

  @Field({ description: 'When it was written.' })
  createdAt: Date;

  @Field({ description: 'When it last changed.' })
  updatedAt: Date;
}

@ObjectType({ simpleResolvers: true, description: 'A page of task notes, oldest first.' })
export class TaskNoteConnection extends Connection(TaskNote, 'TaskNote') {
  taskId: number;
}
