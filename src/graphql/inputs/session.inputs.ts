import { Field, ID, InputType, Int } from 'type-graphql';
import { ItemStateEnum, PlanPresetEnum } from '../types/enums.js';

@InputType({ description: 'A change of a session\'s plan rules; a field left out keeps its value.' })
export class PlanRulesInput {
  @Field(() => Boolean, { nullable: true, description: 'At most one item IN_PROGRESS.' })
  oneActive?: boolean | null;

  @Field(() => [ItemStateEnum], { nullable: true, description: 'States (any of them) that need a note when a step is moved into them, by any mutation; [] for none.' })
  noteRequiredFor?: ItemStateEnum[] | null;

  @Field(() => Int, { nullable: true, description: 'Fewest steps, 0..maxItems.' })
  minItems?: number | null;

  @Field(() => Int, { nullable: true, description: 'Most steps, minItems..100.' })
  maxItems?: number | null;

  @Field(() => Int, { nullable: true, description: 'Longest step text, 1..1000 characters.' })
  maxTextLength?: number | null;

  @Field(() => Int, { nullable: true, description: 'Longest note kept, 1..20000 characters; a longer note is kept to its first maxNoteLength characters.' })
  maxNoteLength?: number | null;

  @Field(() => Boolean, {
    nullable: true,
    description: 'Once the plan is first written, the session may only add steps and change their states (PLAN_LOCKED otherwise). Under planOnce, setPlanRules may not turn it off.',
  })
  planOnce?: boolean | null;
}

@InputType({ description: 'One entry of a whole-list writeTodos: a step\'s text and its state.' })
export class TodoInput {
  @Field({ description: 'The step\'s text; trimmed. The same text as a live step keeps that step\'s id.' })
  content: string;

  @Field(() => ItemStateEnum, { description: 'Its state; a value outside ItemState is refused.' })
  status: ItemStateEnum;

  @Field(() => String, {
    nullable: true,
    description: "The validation or reason, for a state in the session's noteRequiredFor (NOTE_REQUIRED without it when the step moves into that state). Kept to maxNoteLength characters.",
  })
  note?: string | null;
}

@InputType({ description: 'A new agent session.' })
export class StartSessionInput {
  @Field(() => ID, { nullable: true, description: 'The session that starts this one as its helper, one of the calling bearer token\'s own; NOT_FOUND when unknown or another token\'s (the same words either way).' })
  parentId?: string | null;

  @Field(() => PlanPresetEnum, { nullable: true, description: 'The rules to start from (WHOLE_LIST when null); rules given beside it override them field by field.' })
  preset?: PlanPresetEnum | null;

  @Field(() => PlanRulesInput, { nullable: true, description: "Rules merged onto the preset's, field by field." })
  rules?: PlanRulesInput | null;

  @Field(() => String, { nullable: true, description: 'What to call the session where people see it (an addition to the contract): a label of at most 120 characters.' })
  name?: string | null;
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
