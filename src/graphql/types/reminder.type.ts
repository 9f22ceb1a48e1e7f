import { Field, Int, ObjectType } from 'type-graphql';
import { Task } from './memory.type.js';

@ObjectType({ simpleResolvers: true, description: 'Whether end-of-turn reminders are sent, and how often at most (stored in the database, shared by every server).' })
export class ReminderSettings {
  @Field({ description: 'False turns reminders off: endTurn then always returns null.' })
  enabled: boolean;

  @Field(() => Int, { description: 'A session is reminded at most once per this many minutes (1..1440; default 30).' })
  intervalMinutes: number;
}

@ObjectType({ simpleResolvers: true, description: 'Asks an agent, at the end of its turn, to update the open tasks of the domains it named.' })
export class Reminder {
  @Field({ description: 'Phrased for the agent: which open tasks to update, with their progress, and how.' })
  text: string;

  @Field(() => [Task], { description: 'The open tasks of those domains (and below), most recently updated first; at most 20.' })
  tasks: Task[];

  @Field(() => [String], { description: 'The domains the session has named, sorted.' })
  domains: string[];
}
