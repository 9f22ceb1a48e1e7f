import { Field, ID, InterfaceType, ObjectType } from 'type-graphql';
import { MemoryKindEnum } from './enums.js';

@InterfaceType('Change', { description: 'What every subscription payload says about a committed change: enough for a client to refetch, or to patch from the fields it asks for.' })
abstract class ChangeBase {
  @Field({ description: 'What happened, e.g. ITEM_STATE, ITEMS_ADDED, NOTE_EDITED, PLAN_WRITTEN, TURN_STARTED, SETTINGS_CHANGED.' })
  action: string;

  @Field({ description: 'When the change was committed.' })
  at: Date;

  @Field(() => ID, { nullable: true, description: 'The agent session that made the change (the x-session-id it sent); null for a caller without one, such as the dashboard.' })
  madeBy: string | null;
}

@ObjectType({ simpleResolvers: true, implements: ChangeBase, description: 'A committed change to one task or note. Ask for memory to read it as it now stands.' })
export class MemoryChange extends ChangeBase {
  @Field(() => ID, { description: 'The task or note that changed.' })
  memoryId: string;

  @Field(() => MemoryKindEnum, { description: 'TASK or NOTE.' })
  kind: MemoryKindEnum;

  @Field(() => String, { nullable: true, description: 'Its domain now (null for a session\'s plan).' })
  domain: string | null;
}

@ObjectType({ simpleResolvers: true, implements: ChangeBase, description: 'A committed change to one task (a knowledge-base task or a session\'s plan): its items, notes, comments or fields. Ask for task to read it as it now stands.' })
export class TaskChange extends ChangeBase {
  @Field(() => ID, { description: 'The task that changed.' })
  taskId: string;
}

@ObjectType({ simpleResolvers: true, implements: ChangeBase, description: 'A committed change to a session: its plan, turn, rules or finish. Ask for session to read it as it now stands.' })
export class SessionChange extends ChangeBase {
  @Field(() => ID, { description: 'The session that changed.' })
  sessionId: string;

  @Field(() => ID, { nullable: true, description: 'Its parent when it is a helper session; null for a top-level session.' })
  parentId: string | null;
}
