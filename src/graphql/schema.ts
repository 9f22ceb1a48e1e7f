import 'reflect-metadata';
import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { DateTimeResolver } from 'graphql-scalars';
import { buildSchema } from 'type-graphql';
import { ItemResolver, TaskResolver } from './resolvers/task.resolver.js';

/** Every resolver class; the schema is built from these. */
export const RESOLVERS = [TaskResolver, ItemResolver] as const;

/** The code-first schema. Inputs are checked by the domain rules, so class-validator is off. */
export async function createSchema(): Promise<GraphQLSchema> {
  return buildSchema({
    resolvers: [...RESOLVERS],
    scalarsMap: [{ type: Date, scalar: DateTimeResolver }],
    validate: false,
  });
}

/** The schema as committed in schema.graphql: sorted, so the file diffs cleanly. */
export function printSortedSchema(schema: GraphQLSchema): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
