import { Field, Int, ObjectType } from 'type-graphql';

/**
 * Answered over the kept counts as they are (memory-reader.ts keeps them
 * between requests while nothing commits): the two times stay the ISO
 * texts they are stored as, and the DateTime scalar reads one only when a
 * query asks for it.
 */
@ObjectType({ simpleResolvers: true, description: 'A domain path with counts over it and everything below it.' })
export class Domain {
  @Field({ description: 'Full path, e.g. "acme/checkout".' })
  path: string;

  @Field(() => Int, { description: 'Open tasks in this domain and below.' })
  openTasks: number;

  @Field(() => Int, { description: 'All tasks in this domain and below.' })
  tasks: number;

  @Field(() => Int, { description: 'Notes in this domain and below.' })
  notes: number;

  @Field(() => Date, { description: 'The latest change of a task or note in this domain and below (an addition to the contract): sort by it for recent activity.' })
  lastActivityAt: Date | string;

  @Field(() => Date, { description: 'When the first memory in this domain and below was made (an addition to the contract).' })
  createdAt: Date | string;
}
