import { Field, Int, ObjectType } from 'type-graphql';

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

  @Field({ description: 'The latest change of a task or note in this domain and below (an addition to the contract): sort by it for recent activity.' })
  lastActivityAt: Date;

  @Field({ description: 'When the first memory in this domain and below was made (an addition to the contract).' })
  createdAt: Date;
}
