import { Field, ObjectType } from 'type-graphql';

@ObjectType({ simpleResolvers: true, description: 'A time-limited hold on an item by one session. An expired claim is no claim.' })
export class Claim {
  /** For Claim.session. */
  sessionId: string;

  @Field({ description: 'When the claim was taken (database time); a renewal keeps it.' })
  claimedAt: Date;

  @Field({ description: 'Database time after which the claim no longer holds unless renewed.' })
  expiresAt: Date;
}
