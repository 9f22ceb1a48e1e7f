import { Field, ID, InputType } from 'type-graphql';

@InputType({ description: 'A comment on a task, or on one of its items.' })
export class AddCommentInput {
  @Field(() => ID, { description: 'The task.' })
  taskId: string;

  @Field({ description: 'Free text; cite items as [[#id]].' })
  body: string;

  @Field(() => ID, { nullable: true, description: 'The item it is on; on the task itself when null.' })
  item?: string | null;

  @Field(() => String, { nullable: true, description: 'Retrying with the same key and input returns the first result and records nothing new.' })
  idempotencyKey?: string | null;
}

@InputType({ description: 'An item a brief waits for.' })
class DependencyInput {
  @Field(() => ID, { description: 'An item of the same task.' })
  item: string;

  @Field(() => String, { nullable: true, description: 'Why, optionally.' })
  reason?: string | null;
}

@InputType({ description: 'A brief, field by field: every field but extraInfo is required and non-empty.' })
export class BriefInput {
  @Field({ description: 'What the briefed items achieve.' })
  goal: string;

  @Field({ description: 'What to know first.' })
  context: string;

  @Field({ description: 'How to do it.' })
  steps: string;

  @Field({ description: 'What goes wrong easily.' })
  pitfalls: string;

  @Field({ description: 'When the items count as done.' })
  doneWhen: string;

  @Field(() => [DependencyInput], { description: "Empty list means 'none'; at most 20 items. Each briefed item waits for each item named (one edge each); TOO_LARGE, naming the cap, past 50 edges by which one item waits, 200 edges waiting for one item, or 2,000 edges in one task." })
  dependsOn: DependencyInput[];

  @Field(() => String, { nullable: true, description: 'Anything else; optional.' })
  extraInfo?: string | null;
}

@InputType({ description: 'A task note: a brief on items (items + brief) or a note on the whole task (body).' })
export class AddTaskNoteInput {
  @Field(() => ID, { description: 'The task.' })
  taskId: string;

  @Field({ description: 'A short label; no [[#id]] tokens.' })
  title: string;

  @Field(() => [ID], { nullable: true, description: 'Items the note briefs (at most 100); give brief with them. Omit both for a whole-task note with body.' })
  items?: string[] | null;

  @Field(() => BriefInput, { nullable: true, description: 'The brief, with items.' })
  brief?: BriefInput | null;

  @Field(() => String, { nullable: true, description: 'The note on the whole task, without items and brief.' })
  body?: string | null;

  @Field(() => String, { nullable: true, description: 'Retrying with the same key and input returns the first result and records nothing new.' })
  idempotencyKey?: string | null;
}

@InputType({ description: 'Changes a task note; body only for a whole-task note, brief only for a brief (a whole new brief).' })
export class EditTaskNoteInput {
  @Field(() => ID, { description: 'The task note.' })
  id: string;

  @Field(() => String, { nullable: true, description: 'New title.' })
  title?: string | null;

  @Field(() => String, { nullable: true, description: 'New body (whole-task notes).' })
  body?: string | null;

  @Field(() => BriefInput, { nullable: true, description: 'New brief (notes on items); replaces every field.' })
  brief?: BriefInput | null;
}

@InputType({ description: 'A new note (a plain memory).' })
export class CreateNoteInput {
  @Field({ description: 'A short label; no [[#id]] tokens.' })
  title: string;

  @Field({ description: 'The note; may cite any item as [[#id]].' })
  body: string;

  @Field({ description: 'Scope such as "acme/checkout".' })
  domain: string;

  @Field(() => String, { nullable: true, description: 'Retrying with the same key and input returns the first result and records nothing new.' })
  idempotencyKey?: string | null;
}

@InputType({ description: 'Changes a note; omitted fields stay.' })
export class EditNoteInput {
  @Field(() => ID, { description: 'The note.' })
  id: string;

  @Field(() => String, { nullable: true, description: 'New title.' })
  title?: string | null;

  @Field(() => String, { nullable: true, description: 'New body.' })
  body?: string | null;

  @Field(() => String, { nullable: true, description: 'New domain.' })
  domain?: string | null;
}
