import { Field, ObjectType } from 'type-graphql';
import { Item } from './item.type.js';
import { Task } from './memory.type.js';

@ObjectType({ simpleResolvers: true, description: 'The task createTask made, and its items.' })
export class CreateTaskPayload {
  @Field(() => Task, { description: 'The new task.' })
  task: Task;

  @Field(() => [Item], { description: 'The created items, in order.' })
  items: Item[];
}

@ObjectType({ simpleResolvers: true, description: 'A task and the items a call added.' })
export class ItemsPayload {
  @Field(() => Task, { description: 'The task after the call.' })
  task: Task;

  @Field(() => [Item], { description: 'The items this call added, in order.' })
  items: Item[];
}
