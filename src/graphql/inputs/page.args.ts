import { ArgsType, Field, Int } from 'type-graphql';

/**
 * The page arguments every connection field takes, declared once. They are
 * checked before the operation runs (request-limits.ts) and again where the
 * page is read (domain/paging.ts).
 */
@ArgsType()
export class PageArgs {
  @Field(() => Int, { nullable: true, description: 'Page size, 1..200 (default 50).' })
  first?: number | null;

  @Field(() => String, { nullable: true, description: 'endCursor of the previous page.' })
  after?: string | null;
}
