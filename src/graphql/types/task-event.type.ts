import { Field, ID, ObjectType } from 'type-graphql';
import { ItemStateEnum } from './enums.js';

@ObjectType({ simpleResolvers: true, description: 'An item as it stood in a recorded list.' })
class ItemSnapshot {
  @Field(() => ID, { description: "The item's id." })
  id: string;

  @Field({ description: 'Its label then.' })
  text: string;

  @Field(() => ItemStateEnum, { description: 'Its state then.' })
  state: ItemStateEnum;
}

@ObjectType({ simpleResolvers: true, description: 'One difference between a recorded list and the one before it.' })
export class ItemChange {
  @Field(() => ID, { description: 'The item that changed.' })
  itemId: string;

  @Field({ description: 'ADDED, REMOVED, STATE, RENAMED or MOVED; CLAIMED or RELEASED for a claim (from/to: the holding session); OVERRIDDEN for a change forced past a claim (from: the session whose claim it was).' })
  kind: string;

  @Field({ description: "The item's label after the change (before it, for REMOVED)." })
  text: string;

  @Field(() => String, { nullable: true, description: 'The old state (STATE, REMOVED), label (RENAMED), 1-based place (MOVED) or holding session (RELEASED, OVERRIDDEN).' })
  from: string | null;

  @Field(() => String, { nullable: true, description: 'The new state (STATE, ADDED), label (RENAMED), 1-based place (MOVED) or holding session (CLAIMED).' })
  to: string | null;
}

@ObjectType({ simpleResolvers: true, description: "One recorded change: for a session's plan, one 'Update to-do list' row." })
export class TaskEvent {
  @Field(() => ID, { description: 'Event id; events of a task are numbered in the order they happened.' })
  id: string;

  @Field({ description: 'When the change was recorded.' })
  at: Date;

  @Field({
    description:
      'What happened: TASK_CREATED, TASK_EDITED, ITEM_STATE, ITEMS_ADDED, ITEM_RENAMED, ITEM_DELETED, ITEM_RESTORED, ITEM_MOVED, ITEM_LINKED, ITEM_WAITS (what an item waits for, set by its own after), COMMENT_ADDED, NOTE_ADDED, NOTE_EDITED, NOTE_DELETED, PLAN_WRITTEN, PLAN_CLEARED, ITEM_CLAIMED, CLAIM_RELEASED (a claim taken or released: the change says whose, the event\'s session who did it), CLAIM_OVERRIDDEN (a state or text change forced past another session\'s claim with force: true: the change says whose claim, the event\'s session who forced it; the change itself is the next event).',
  })
  action: string;

  /** The history row: its snapshot and changes are read from it when asked for (parsed then, see taskEventOf). */
  row: { readonly items: readonly ItemSnapshot[]; readonly changes: readonly ItemChange[] };

  @Field(() => [ItemSnapshot], { description: 'The list as it stood after this change (live items, in order).' })
  get items(): readonly ItemSnapshot[] {
    return this.row.items;
  }

  @Field(() => [ItemChange], { description: 'What changed since the previous event.' })
  get changes(): readonly ItemChange[] {
    return this.row.changes;
  }

  @Field(() => ID, { nullable: true, description: 'The agent session that made the change, if it sent x-session-id.' })
  sessionId: string | null;
}
