import { Field, ID, InputType, Int } from 'type-graphql';
import { ItemStateEnum } from '../types/enums.js';

@InputType({ description: 'A new knowledge-base task: a goal and its checklist.' })
export class CreateTaskInput {
  @Field({ description: 'A short label for the task; no [[#id]] tokens.' })
  title: string;

  @Field({
    description:
      'What done looks like, in free text (up to 20,000 characters). Cite items of this task only as [[#id]] (at most 100 different items in one text, TOO_LARGE past it); a bare word such as i3 is refused ' +
      '(BARE_ITEM_REFERENCE). A new task has no item ids yet: add citations later with editTask.',
  })
  goal: string;

  @Field(() => [String], { nullable: true, description: 'One label per entry, in order (each at most 80 characters, verb first).' })
  items?: string[] | null;

  @Field(() => String, { nullable: true, description: 'Alternative to items: one label per line (blank lines are skipped). Send one of the two, not both.' })
  itemsText?: string | null;

  @Field({ description: 'Scope such as "acme/checkout/billing": 1..8 lower-case segments joined by "/".' })
  domain: string;

  @Field(() => String, { nullable: true, description: 'Retrying with the same key and input returns the first result and records nothing new.' })
  idempotencyKey?: string | null;
}

@InputType({ description: 'Corrects a task in place; omitted fields stay as they are.' })
export class EditTaskInput {
  @Field(() => ID, { description: 'The task.' })
  id: string;

  @Field(() => String, { nullable: true, description: 'New title.' })
  title?: string | null;

  @Field(() => String, { nullable: true, description: 'New goal; may cite the task\'s items as [[#id]].' })
  goal?: string | null;

  @Field(() => String, { nullable: true, description: 'New domain.' })
  domain?: string | null;

  @Field(() => Int, { nullable: true, description: 'Refuse (VERSION_CONFLICT) unless the task is still at this version.' })
  expectedVersion?: number | null;
}

@InputType({ description: 'Settles what is left of a knowledge-base task in one step: every open item dropped with one reason, so the task is archived.' })
export class DropRestAndArchiveInput {
  @Field(() => ID, { description: 'The task (a knowledge-base task; a session\'s plan has no archive).' })
  taskId: string;

  @Field({ description: 'Why the rest will not be done: the note of every item it drops, shown in its row. Required, like any free text (up to 20,000 characters; may cite the task\'s items as [[#id]]).' })
  reason: string;

  @Field(() => Int, { nullable: true, description: 'Refuse (VERSION_CONFLICT) unless the task is still at this version.' })
  expectedVersion?: number | null;
}

@InputType({ description: 'Changes one item: its state, its label, a comment on it, memories linked to it.' })
export class UpdateItemInput {
  @Field(() => ID, { description: 'The item.' })
  id: string;

  @Field(() => ID, {
    nullable: true,
    description: 'When given, the item must belong to this task (NOT_FOUND otherwise, and nothing changes): a guard against a mixed-up id, since item ids and memory ids are both small numbers.',
  })
  taskId?: string | null;

  @Field(() => ItemStateEnum, { nullable: true, description: 'New state. Setting the state it already has records nothing.' })
  state?: ItemStateEnum | null;

  @Field(() => String, { nullable: true, description: 'Rename; the id, state and briefs stay.' })
  text?: string | null;

  @Field(() => String, { nullable: true, description: 'Recorded as a comment on the item, and as its note when state changes.' })
  comment?: string | null;

  @Field(() => [ID], { nullable: true, description: 'Memory ids to link to the item: at most 100 in one call, and 100 linked to one item in all (TOO_LARGE past either; nothing recorded).' })
  related?: string[] | null;

  @Field(() => Int, { nullable: true, description: 'Refuse (VERSION_CONFLICT) unless the task is still at this version.' })
  expectedVersion?: number | null;

  @Field(() => Boolean, {
    nullable: true,
    description: "Claims fence: a state or text change by a session that does not hold the item's live claim, while another session does (or after its own lapsed claim was taken over), is refused with CLAIMED. force: true makes the change anyway; give the reason in comment. The override is recorded (history CLAIM_OVERRIDDEN, and the change log) with the session that forced it. A caller without a session (a person) is never fenced.",
  })
  force?: boolean | null;

  @Field(() => [ID], {
    nullable: true,
    description: 'Ids of items of the same task this item waits for, without a brief: it is not ready (ready, claimNext) until each is DONE or DROPPED, and blockedBy and blocks show the waits. Replaces what an earlier after said; [] clears it; a brief\'s dependsOn stays. At most 20, each once. Refused, with nothing recorded: an item of another task or none (UNKNOWN_REFERENCE), the item itself or a cycle, named item by item (BAD_USER_INPUT), a deleted item (DELETED_ITEM), or past the dependency caps (TOO_LARGE). Recorded as history ITEM_WAITS.',
  })
  after?: string[] | null;
}

@InputType({ description: 'More items for a task.' })
export class AddItemsInput {
  @Field(() => ID, { description: 'The task.' })
  taskId: string;

  @Field(() => [String], { description: 'One label per entry, in order (at most 100 in one call).' })
  items: string[];

  @Field(() => ID, { nullable: true, description: 'Insert after this item; at the end when null.' })
  after?: string | null;

  @Field(() => Int, { nullable: true, description: 'Refuse (VERSION_CONFLICT) unless the task is still at this version.' })
  expectedVersion?: number | null;

  @Field(() => String, { nullable: true, description: 'Retrying with the same key and input returns the first result and records nothing new.' })
  idempotencyKey?: string | null;
}

@InputType({ description: 'Moves one item within its list.' })
export class MoveItemInput {
  @Field(() => ID, { description: 'The item to move.' })
  id: string;

  @Field(() => ID, { nullable: true, description: 'Place after this item; first when null.' })
  after?: string | null;
}
