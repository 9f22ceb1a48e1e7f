import { Field, ID, InputType, Int } from 'type-graphql';

@InputType({ description: 'An item to claim or renew, and for how long.' })
export class ClaimItemInput {
  @Field(() => ID, { description: 'The item.' })
  id: string;

  @Field(() => Int, { nullable: true, description: 'How long the claim holds without renewal: 10..86400 seconds, default 900.' })
  ttlSeconds?: number | null;
}
