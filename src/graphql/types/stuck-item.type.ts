import { Field, ObjectType } from 'type-graphql';
import { Connection } from './connection.type.js';
import { Item } from './item.type.js';
import { Task } from './memory.type.js';

@ObjectType({ simpleResolvers: true, description: 'A BLOCKED or FAILED item in the inbox of stuck work, with where it is and who set it.' })
export class StuckItem {
  /** For setBy. */
  setById: string | null;

  @Field(() => Item, { description: 'The stuck item; its note is the reason given, and its claim who holds it now.' })
  item: Item;

  @Field(() => Task, { description: 'The knowledge-base task or the session plan it belongs to (Task.session names the plan\'s session).' })
  task: Task;

  @Field({ description: 'When its state was last set (else when the item last changed, once the change log no longer holds that change).' })
  since: Date;

  @Field({ description: 'True when the change log still holds the change that set its state, so setBy says who: a session, or null for a person.' })
  setByKnown: boolean;
}

@ObjectType({ description: 'Stuck items, newest change first.' })
export class StuckItemConnection extends Connection(StuckItem, 'StuckItem') {}
