import type { MiddlewareFn } from 'type-graphql';
import type { Context } from './context.js';
import { clearLoaders } from './loaders.js';

/**
 * A document may hold several mutations, run one after another with one set
 * of loaders. Once a mutation has run, the loaders forget what they held, so
 * its result (and the next mutation's) is read as it now stands.
 */
export const FreshAfterMutation: MiddlewareFn<Context> = ({ context, info }, next) => {
  if (info.parentType.name !== 'Mutation') return next();
  return next().then((result: unknown) => {
    clearLoaders(context.loaders);
    return result;
  });
};
