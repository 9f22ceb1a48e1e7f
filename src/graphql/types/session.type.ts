import { Field, ID, Int, ObjectType } from 'type-graphql';
import { ItemStateEnum, PlanPresetEnum } from './enums.js';
import { Task } from './memory.type.js';

@ObjectType({ simpleResolvers: true,
  description:
    "How a session's plan is checked. Checked when an update is sent, against what that update changes; a plan recorded under other rules is kept as it is. " +
    'Text and size rules judge writeTodos and setPlan (the whole list), addSteps and addItems (the new steps, and maxItems), deleteItem (minItems) and ' +
    'renames; updateStep changes neither text nor size, so it is judged by oneActive and noteRequiredFor. noteRequiredFor holds whichever mutation ' +
    'moves a step (updateStep, writeTodos with TodoInput.note, updateItem with comment); planOnce refuses the session\'s rewrites (PLAN_LOCKED). ' +
    'Without x-session-id a caller (the dashboard) may steer any plan through the task mutations, under the same rules; with one, only its own.',
})
export class PlanRules {
  @Field({ description: 'At most one item IN_PROGRESS.' })
  oneActive: boolean;

  @Field(() => [ItemStateEnum], {
    description:
      'States that need a note (validation or reason) when an item is moved into them, by any mutation: updateStep.note, TodoInput.note, updateItem.comment. ' +
      'A step that keeps its recorded state needs nothing new.',
  })
  noteRequiredFor: ItemStateEnum[];

  @Field(() => Int, { description: 'Fewest steps a plan written whole (writeTodos, setPlan) may have.' })
  minItems: number;

  @Field(() => Int, { description: 'Most steps a plan may have (writeTodos, setPlan, addSteps).' })
  maxItems: number;

  @Field(() => Int, { description: 'Longest step text, in characters once trimmed.' })
  maxTextLength: number;

  @Field(() => Int, { description: 'Notes longer than this are kept to their first maxNoteLength characters.' })
  maxNoteLength: number;

  @Field({
    description:
      'Once the plan is first written, the session may add steps and change their states, never rewrite, rename, reorder, delete or clear them ' +
      '(PLAN_LOCKED). A caller with no session (the dashboard) may still edit; every change is in the history.',
  })
  planOnce: boolean;
}

@ObjectType({ simpleResolvers: true,
  description:
    'An agent session (a chat). It owns at most one plan; helper agents have sessions of their own. ' +
    'Plan mutations act on the calling session (the x-session-id header); without a started one they are refused with NO_SESSION. ' +
    'A finished session may still change its plan: any recorded plan update clears finishedAt, so the session must pass finishSession again.',
})
export class Session {
  /** Row fields the field resolvers need. */
  parentId: string | null;
  planTaskId: number | null;
  planStanding: boolean;
  /** The stored name: given or the client's at the start, else the first plan's first step (sessions stored before that rule: Session.name reads the plan's first step). */
  givenName: string | null;

  @Field(() => ID, { description: 'Made by the server in startSession; send it as the x-session-id header.' })
  id: string;

  @Field(() => PlanRules, { description: 'The rules this session\'s plan updates are checked against.' })
  rules: PlanRules;

  @Field(() => PlanPresetEnum, {
    description:
      'The tool set the session started with (an addition to the contract): startSession\'s preset (else the preset its rules match best), or the ' +
      'plan tool set of its MCP connection (WHOLE_LIST with none). It stays when setPlanRules changes a rule; the dashboard shows the plan in its ' +
      'words. For a session stored before this was kept, the preset its rules match best.',
  })
  preset: PlanPresetEnum;

  @Field(() => Int, { description: 'Turns started so far (startTurn); 0 for a new session.' })
  turn: number;

  @Field(() => Date, { nullable: true, description: 'When finishSession succeeded (a repeated finishSession keeps the first time); null while the session works, and cleared by any later change of the plan\'s steps.' })
  finishedAt: Date | null;

  @Field({ description: 'When startSession made it.' })
  createdAt: Date;

  @Field(() => Date, {
    nullable: true,
    description:
      'When the session\'s agent was last told of changes others made to its plan or to an item it holds a claim on (an addition to the contract): ' +
      'a person\'s change (a call without x-session-id) or another session\'s is told once, as a "Since your last call: ..." line at the start of ' +
      'the agent\'s next MCP tool answer, whatever the tool. The dashboard shows a change made before this time as seen by the agent; null when it was never told of one.',
  })
  steeringSeenAt: Date | null;
}

@ObjectType({ simpleResolvers: true, description: 'What every plan mutation answers: a line for the agent, the plan, and the plan as a checklist.' })
export class PlanPayload {
  @Field({
    description:
      'One line for the agent, e.g. "Updated todo list: 1 pending, 1 in progress, 2 completed.". writeTodos answers exactly that line; ' +
      'setPlan, addSteps and updateStep say what they did first (e.g. \'Step 2 "Run the tests" is DONE.\') and end with it.',
  })
  message: string;

  @Field(() => Task, { nullable: true, description: 'The plan after the call; null after clearPlan.' })
  plan: Task | null;

  @Field({
    description:
      'The whole plan rendered as a checklist, one line per item: "[x] 2. Run the tests - ran npm test, 38 passed". ' +
      'Glyphs: [ ] PENDING, [~] IN_PROGRESS, [x] DONE, [!] BLOCKED, [-] DROPPED, [f] FAILED; then the 1-based step number and text, ' +
      '" - note" when the step has a note, and " (added)" when it was added after the plan was first written. ' +
      '"(no steps)" for an empty plan, "(no plan)" after clearPlan.',
  })
  rendered: string;
}
