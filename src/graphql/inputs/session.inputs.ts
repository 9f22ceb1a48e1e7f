import { Field, ID, InputType, Int } from 'type-graphql';
import { ItemStateEnum } from '../types/enums.js';

@InputType({ description: 'A change of a session\'s plan rules; a field left out keeps its value.' })
export class PlanRulesInput {
  @Field(() => Boolean, { nullable: true, description: 'At most one item IN_PROGRESS.' })
  oneActive?: boolean | null;

  @Field(() => [ItemStateEnum], { nullable: true, description: 'Settled states (DONE, FAILED, BLOCKED, DROPPED) that need a note in updateStep; [] for none.' })
  noteRequiredFor?: ItemStateEnum[] | null;

  @Field(() => Int, { nullable: true, description: 'Fewest steps, 0..maxItems.' })
  minItems?: number | null;

  @Field(() => Int, { nullable: true, description: 'Most steps, minItems..500.' })
  maxItems?: number | null;

  @Field(() => Int, { nullable: true, description: 'Longest step text, 1..1000 characters.' })
  maxTextLength?: number | null;
}

@InputType({ description: 'One entry of a whole-list writeTodos: a step\'s text and its state.' })
export class TodoInput {
  @Field({ description: 'The step\'s text; trimmed. The same text as a live step keeps that step\'s id.' })
  content: string;

  @Field(() => ItemStateEnum, { description: 'Its state; a value outside ItemState is refused.' })
  status: ItemStateEnum;
}

@InputType({ description: 'A new agent session.' })
export class StartSessionInput {
  @Field(() => ID, { nullable: true, description: 'The session that starts this one as its helper; NOT_FOUND when unknown.' })
  parentId?: string | null;

  @Field(() => PlanRulesInput, { nullable: true, description: 'Rules merged onto the defaults (oneActive false, noteRequiredFor DONE/FAILED/BLOCKED/DROPPED, minItems 0, maxItems 50, maxTextLength 160).' })
  rules?: PlanRulesInput | null;
}

@InputType({ description: 'One step moved into a state. Name it by step or by id, exactly one.' })
export class UpdateStepInput {
  @Field(() => Int, { nullable: true, description: '1-based place in the plan, as the rendered list shows it.' })
  step?: number | null;

  @Field(() => ID, { nullable: true, description: 'Or the item\'s id.' })
  id?: string | null;

  @Field(() => ItemStateEnum, { description: 'The new state.' })
  state: ItemStateEnum;

  @Field(() => String, { nullable: true, description: 'Validation for DONE/FAILED (what was checked), reason for BLOCKED/DROPPED.' })
  note?: string | null;
}
