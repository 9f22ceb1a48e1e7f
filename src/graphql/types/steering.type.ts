import { Field, ID, ObjectType } from 'type-graphql';

@ObjectType({
  simpleResolvers: true,
  description:
    "A person's latest change (a call without x-session-id) to an agent's plan or to an item the agent holds a claim on, and whether the agent has been told of it " +
    '(it is told at the start of its next MCP tool answer; Session.steeringSeenAt).',
})
export class Steering {
  /** For Steering.session. */
  sessionId: string;

  @Field({ description: 'When the person made the change.' })
  at: Date;

  @Field({ description: 'What the change was (LoggedChange.action), e.g. ITEM_STATE, ITEM_DELETED, PLAN_WRITTEN, COMMENT_ADDED.' })
  action: string;

  @Field(() => ID, { nullable: true, description: 'The item it changed; null for a change to the plan as a whole.' })
  itemId: string | null;

  @Field(() => String, { nullable: true, description: "The item's label as it now stands; null with itemId." })
  itemText: string | null;

  @Field({ description: 'Whether the agent has been told of this change: false until its next MCP tool call after the change.' })
  seen: boolean;

  @Field(() => Date, { nullable: true, description: 'When the agent was told (its steeringSeenAt); null while it has not been.' })
  seenAt: Date | null;
}
