import { Field, ID, Int, ObjectType } from 'type-graphql';
import type { ItemState } from '../../domain/states.js';
import { ItemStateEnum } from './enums.js';

@ObjectType({ simpleResolvers: true, description: 'Where a page of a connection ends.' })
export class PageInfo {
  @Field({ description: 'True when another page follows; pass endCursor as after to get it.' })
  hasNextPage: boolean;

  @Field(() => String, { nullable: true, description: "The last row's cursor; null on an empty page." })
  endCursor: string | null;
}

@ObjectType({ simpleResolvers: true, description: 'What an [[#id]] token names, as it reads now.' })
export class ItemRef {
  @Field(() => ID, { description: "The item's id, as cited." })
  id: string;

  @Field(() => Int, { nullable: true, description: "Current place in its task's list; null once the item is deleted." })
  number: number | null;

  @Field({ description: 'Current label (kept after deletion).' })
  text: string;

  @Field({ description: 'True once the item is deleted.' })
  deleted: boolean;

  @Field(() => ItemStateEnum, { description: 'Its state now, e.g. whether an item waited for is settled yet.' })
  state: ItemState;
}

@ObjectType({ simpleResolvers: true, description: "Counts of a task's live items by state." })
export class Progress {
  @Field(() => Int, { description: 'Items DONE.' })
  done: number;

  @Field(() => Int, { description: 'Live (not deleted) items.' })
  total: number;

  @Field(() => Int, { description: 'Items PENDING.' })
  pending: number;

  @Field(() => Int, { description: 'Items IN_PROGRESS.' })
  inProgress: number;

  @Field(() => Int, { description: 'Items DROPPED.' })
  dropped: number;

  @Field(() => Int, { description: 'Items BLOCKED.' })
  blocked: number;

  @Field(() => Int, { description: 'Items FAILED.' })
  failed: number;
}
