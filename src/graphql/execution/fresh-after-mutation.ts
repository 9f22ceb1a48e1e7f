import { defaultFieldResolver, type GraphQLSchema } from 'graphql';
import type { MemoryEntity } from '../../db/entities/index.js';
import type { Context } from '../context.js';
import { clearLoaders } from '../loaders.js';

/** The rows a mutation's own transaction left behind, handed to its context's loaders once they are cleared. */
const written = new WeakMap<Context, MemoryEntity[]>();

/**
 * A mutation's resolver hands over the memory rows its transaction wrote, as
 * committed (a task with its new version, counts and time): its answer then
 * reads them from the loader instead of reading them back after the commit
 * (updateItem's `task { … }` was a statement of its own). What another
 * writer commits after this one is not shown either way: the answer is what
 * this mutation left, as a read in the same moment would give.
 */
export function keepWritten(context: Context, ...rows: MemoryEntity[]): void {
  const kept = written.get(context);
  if (kept) kept.push(...rows);
  else written.set(context, rows);
}

/**
 * A document may hold several mutations, run one after another with one set
 * of loaders. Once a mutation has run, the loaders forget what they held, so
 * its result (and the next mutation's) is read as it now stands, except the
 * rows the mutation itself wrote (keepWritten), which are that already.
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
      written.delete(context);
      const result = await resolve(source, args, context, info);
      clearLoaders(context.loaders);
      for (const row of written.get(context) ?? []) context.loaders.memory.prime(String(row.id), row);
      written.delete(context);
      return result;
    };
  }
}
