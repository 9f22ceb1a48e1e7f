import 'reflect-metadata';
import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { IsoDateTime } from './iso-date-time.js';
import { buildSchema } from 'type-graphql';
import { directFieldResolvers } from './execution/direct-field-resolvers.js';
import { budgetedSchema } from './execution/execution-budget.js';
import { freshAfterMutation } from './execution/fresh-after-mutation.js';
import { AccessResolver } from './resolvers/access.resolver.js';
import { ClaimResolver, ItemClaimResolver, SessionClaimResolver } from './resolvers/claim.resolver.js';
import { ChangeResolver, MemoryChangeResolver, SessionChangeResolver, TaskChangeResolver } from './resolvers/change.resolver.js';
import { ChangeFeedResolver, WebhookDeliveriesResolver } from './resolvers/change-feed.resolver.js';
import { CommentConnectionResolver, CommentResolver } from './resolvers/comment.resolver.js';
import { MemoryResolver } from './resolvers/memory.resolver.js';
import { PlanResolver } from './resolvers/plan.resolver.js';
import { ReminderResolver } from './resolvers/reminder.resolver.js';
import { SessionResolver, TaskSessionResolver } from './resolvers/session.resolver.js';
import { ItemKnowledgeResolver, TaskKnowledgeResolver } from './resolvers/task-knowledge.resolver.js';
import { BriefResolver, TaskNoteConnectionResolver, TaskNoteResolver } from './resolvers/task-note.resolver.js';
import { StuckItemResolver } from './resolvers/stuck-item.resolver.js';
import { ItemResolver, TaskResolver } from './resolvers/task.resolver.js';
import { ItemChangeSessionResolver, TaskEventSessionResolver } from './resolvers/history-names.resolver.js';
import { ActivityResolver, LoggedChangeNamesResolver } from './resolvers/activity.resolver.js';
import { ItemSteeringResolver, SessionSteeringResolver, SteeringResolver } from './resolvers/steering.resolver.js';
import { createChangePubSub, type ChangePubSub } from './subscriptions/topics.js';

/** Every resolver class; the schema is built from these. */
const RESOLVERS = [
  TaskResolver, ItemResolver, TaskKnowledgeResolver, ItemKnowledgeResolver, TaskNoteResolver, TaskNoteConnectionResolver,
  BriefResolver, CommentResolver, CommentConnectionResolver, MemoryResolver, ReminderResolver,
  SessionResolver, TaskSessionResolver, PlanResolver,
  ChangeResolver, TaskChangeResolver, MemoryChangeResolver, SessionChangeResolver, AccessResolver,
  ChangeFeedResolver, WebhookDeliveriesResolver,
  ClaimResolver, ItemClaimResolver, SessionClaimResolver, StuckItemResolver,
  TaskEventSessionResolver, ItemChangeSessionResolver, SteeringResolver, SessionSteeringResolver, ItemSteeringResolver,
  ActivityResolver, LoggedChangeNamesResolver,
] as const;

/**
 * The code-first schema. Inputs are checked by the domain rules, so
 * class-validator is off. Subscriptions read `pubSub` (the server's, fed by
 * the change bridge); printing the schema needs none of its own.
 */
export async function createSchema(pubSub: ChangePubSub = createChangePubSub()): Promise<GraphQLSchema> {
  const schema = await buildSchema({
    resolvers: [...RESOLVERS],
    pubSub,
    scalarsMap: [{ type: Date, scalar: IsoDateTime }],
    validate: false,
  });
  directFieldResolvers(schema, RESOLVERS);
  freshAfterMutation(schema);
  budgetedSchema(schema);
  // type-graphql has no decorator for the root types; every type is documented, these too.
  schema.getQueryType()!.description = 'Reads: tasks, items and notes by id, memories by domain, search, sessions and settings.';
  schema.getMutationType()!.description =
    'Changes. Each is one transaction: a refused call (an error with extensions.code) records nothing. The calling agent session is the x-session-id header; one naming no started session is refused with NO_SESSION. ' +
    'Every field is nullable: in a request with several mutations, run in order, a refused one answers null with an error whose path names it, ' +
    'and the others answer (and record) as they would alone. Everything that can be refused in a mutation\'s answer (first, after) is checked ' +
    'before anything runs, so an answer never says refused for a change that was recorded; after is not taken inside a mutation\'s answer.';
  schema.getSubscriptionType()!.description =
    'Live changes, over WebSocket (graphql-ws protocol) on the same /graphql path and with the same bearer token (connectionParams.authorization or the Authorization header). Each payload names what changed; ask for its task, memory or session field to read it as it now stands, or refetch.';
  return schema;
}

/** The schema as committed in schema.graphql: sorted, so the file diffs cleanly. */
export function printSortedSchema(schema: GraphQLSchema): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
