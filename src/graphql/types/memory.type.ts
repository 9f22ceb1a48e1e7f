import { Field, ID, InterfaceType, Int, ObjectType } from 'type-graphql';
import type { ProgressCounts } from '../../domain/states.js';
import { Progress } from './common.type.js';
import { MemoryKindEnum, MemoryStatusEnum, TaskStateEnum } from './enums.js';

@InterfaceType({
  description: 'Something the knowledge base remembers: a note or a task. Search and domain listings return memories.',
  // No resolveType: type-graphql then tells Task from Note by class (the mappers build both), synchronously;
  // a resolveType of our own would be wrapped in an async function, which graphql-jit cannot await.
})
export abstract class Memory {
  @Field(() => ID, { description: 'Opaque id; pass it to memory, task, editNote, editTask or related.' })
  id: string;

  @Field(() => MemoryKindEnum, { description: 'NOTE or TASK.' })
  kind: MemoryKindEnum;

  @Field({ description: 'A short label; never carries an [[#id]] token.' })
  title: string;

  @Field(() => String, { nullable: true, description: 'Hierarchical scope such as "acme/checkout/billing"; null for a session\'s plan.' })
  domain: string | null;

  @Field(() => MemoryStatusEnum, { description: 'ACTIVE or ARCHIVED (for a task, derived from its items).' })
  status: MemoryStatusEnum;

  @Field({ description: 'When it was created.' })
  createdAt: Date;

  @Field({ description: 'When it last changed.' })
  updatedAt: Date;
}

@ObjectType({ simpleResolvers: true, implements: Memory, description: 'A plain memory: a title and a body, in a domain. Searchable, linkable to items.' })
export class Note extends Memory {
  @Field({ description: 'The note as written.' })
  body: string;
}

@ObjectType({ simpleResolvers: true, implements: Memory, description: 'A goal and an ordered checklist of items. Its state and status follow its items.' })
export class Task extends Memory {
  /** Numeric id, for the loaders. */
  taskId: number;

  /** The session whose plan this is, if any. */
  sessionId: string | null;

  // State, status and progress come from the counts the task row keeps (no item is read), derived once by toTask.
  @Field(() => TaskStateEnum, { description: 'OPEN, COMPLETED or CANCELLED, derived from the live items.' })
  state: TaskStateEnum;

  @Field(() => MemoryStatusEnum, { description: 'ARCHIVED while the task is COMPLETED or CANCELLED, ACTIVE while OPEN.' })
  declare status: MemoryStatusEnum;

  @Field(() => Progress, { description: 'Counts of live items by state.' })
  progress: ProgressCounts;

  @Field({ description: 'The goal as written, [[#id]] tokens kept.' })
  goal: string;

  @Field(() => Int, { description: 'Increments on every recorded change; pass it back as expectedVersion to refuse lost updates.' })
  version: number;
}
