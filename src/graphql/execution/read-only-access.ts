import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError } from 'graphql';
import type { Context } from '../context.js';

/**
 * A read-only bearer token (src/http/auth.ts, "secret:read") may send queries
 * only: a mutation is refused with FORBIDDEN before any of it runs.
 */
export function readOnlyAccess(): ApolloServerPlugin<Context> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation, contextValue }) {
          if (operation?.operation === 'mutation' && contextValue.access === 'read') {
            throw new GraphQLError('This token may only read. Send a token with write access to change anything.', {
              extensions: { code: 'FORBIDDEN', http: { status: 403 } },
            });
          }
        },
      };
    },
  };
}
