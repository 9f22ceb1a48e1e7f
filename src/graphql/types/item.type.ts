import { Field, ID, ObjectType } from 'type-graphql';
import { ItemStateEnum } from './enums.js';

@ObjectType({ simpleResolvers: true, description: 'One checklist item of a task or plan.' })
export class Item {
  /** Numeric ids, for the loaders. */
  itemId: number;
  taskId: number;

  @Field(() => ID, { description: 'A short decimal string ("57"), unique across the database and never reused: cite it as [[#57]].' })
  id: string;

  @Field({ description: 'The label: short, verb first (at most 80 characters on a knowledge-base task).' })
  text: string;

  @Field(() => ItemStateEnum, { description: 'Where the work on it stands.' })
  state: ItemStateEnum;

  @Field({ description: 'True once deleted: it keeps its id and stays citable, but is not counted or numbered.' })
  deleted: boolean;

  @Field({ description: 'True when the item was added after its task or plan was first written.' })
  added: boolean;

  @Field(() => String, { nullable: true, description: 'The latest validation or reason given with a state change, if any (a state change without one clears it).' })
  note: string | null;

  @Field({ description: 'When it last changed: its state, text, note or deletion. For a step in progress, about when it started (the dashboard shows for how long).' })
  updatedAt: Date;
}
