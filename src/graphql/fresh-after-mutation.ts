import { defaultFieldResolver, type GraphQLSchema } from 'graphql';
import type { Context } from './context.js';
import { clearLoaders } from './loaders.js';

/**
 * A document may hold several mutations, run one after another with one set
 * of loaders. Once a mutation has run, the loaders forget what they held, so
 * its result (and the next mutation's) is read as it now stands.
 *
 * Wraps only the root Mutation fields: a type-graphql global middleware would
 * wrap every field of every answer and make each of them a promise (measured:
 * a 75,000-field history page takes 7 s that way, most of it in promise bookkeeping and GC).
 */
export function freshAfterMutation(schema: GraphQLSchema): void {
  const mutation = schema.getMutationType();
  if (!mutation) return;
  for (const field of Object.values(mutation.getFields())) {
    const resolve = field.resolve ?? defaultFieldResolver;
    field.resolve = async (source, args, context: Context, info) => {
      const result = await resolve(source, args, context, info);
      clearLoaders(context.loaders);
      return result;
    };
  }
}
