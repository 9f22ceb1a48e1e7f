import { Field, ID, InputType, Int } from 'type-graphql';

@InputType({ description: 'An item to claim or renew, and for how long.' })
export class ClaimItemInput {
  @Field(() => ID, { description: 'The item.' })
  id: string;

  @Field(() => Int, { nullable: true, description: 'How long the claim holds without renewal: 1..3600 seconds (at most an hour), default 900; outside that range BAD_USER_INPUT, saying the range. Renew it while you work.' })
  ttlSeconds?: number | null;
}
