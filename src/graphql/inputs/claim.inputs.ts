import { Field, ID, InputType, Int } from 'type-graphql';
import { ItemStateEnum } from '../types/enums.js';

@InputType({ description: 'An item to claim or renew, and for how long.' })
export class ClaimItemInput {
  @Field(() => ID, { description: 'The item.' })
  id: string;

  @Field(() => Int, { nullable: true, description: 'How long the claim holds without renewal: 1..3600 seconds (at most an hour), default 900; outside that range BAD_USER_INPUT, saying the range. Renew it while you work.' })
  ttlSeconds?: number | null;
}

@InputType({ description: 'The item a claimNext settles before it claims the next one: one you hold (the claims fence applies, as to updateItem).' })
export class FinishItemInput {
  @Field(() => ID, { description: 'The item you finished.' })
  id: string;

  @Field(() => ItemStateEnum, { nullable: true, description: 'DONE (the default) or DROPPED; another state is BAD_USER_INPUT.' })
  state?: ItemStateEnum | null;

  @Field(() => String, { nullable: true, description: "Recorded as a comment on the item and as its note, as updateItem's comment is." })
  comment?: string | null;
}
