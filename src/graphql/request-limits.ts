import type { ApolloServerPlugin } from '@apollo/server';
import {
  GraphQLError, getNamedType, getNullableType, isCompositeType, isListType, valueFromAST,
  type FragmentDefinitionNode, type GraphQLCompositeType, type GraphQLSchema, type SelectionSetNode,
} from 'graphql';
import { isDomainError, type ErrorCode } from '../domain/errors.js';
import { PAGE_SIZE_DEFAULT, decodeCursor, pageSize } from '../domain/paging.js';
import type { Context } from './context.js';

/** Fields nested deeper than this are refused: no dashboard view needs more, and each level can multiply the work. */
export const MAX_DEPTH = 15;
/** An estimate of the rows a query can touch (each field once per parent row it is asked of); over it, refused. */
export const MAX_COST = 200_000;
/** Aliased fields in one request. */
export const MAX_ALIASES = 50;
/** A list that is not a connection (related, children, a history row's items) is assumed to hold this many rows. */
const LIST_GUESS = 10;

function refusal(code: ErrorCode, message: string, status = 400): GraphQLError {
  return new GraphQLError(message, { extensions: { code, http: { status } } });
}

interface Walk {
  schema: GraphQLSchema;
  variables: Record<string, unknown>;
  fragments: Record<string, FragmentDefinitionNode>;
  cost: number;
  aliases: number;
  maxDepth: number;
}

/**
 * Checks a whole operation before any of it runs: page arguments anywhere in
 * it (so a mutation is never recorded and then refused for its result's
 * `first`), depth, aliases and an estimated cost. A connection's nodes and
 * edges count once per row of its page (`first`, 50 by default).
 */
function walk(w: Walk, selectionSet: SelectionSetNode, parent: GraphQLCompositeType, depth: number, rows: number, page: number | null): void {
  if (depth > w.maxDepth) w.maxDepth = depth;
  for (const selection of selectionSet.selections) {
    if (selection.kind === 'InlineFragment' || selection.kind === 'FragmentSpread') {
      const fragment = selection.kind === 'FragmentSpread' ? w.fragments[selection.name.value] : selection;
      if (!fragment) continue;
      const condition = fragment.typeCondition ? w.schema.getType(fragment.typeCondition.name.value) : parent;
      if (condition && isCompositeType(condition)) walk(w, fragment.selectionSet, condition, depth, rows, page);
      continue;
    }
    const name = selection.name.value;
    if (name.startsWith('__') || !('getFields' in parent)) continue;
    const field = parent.getFields()[name];
    if (!field) continue;
    if (selection.alias) w.aliases += 1;
    const args: Record<string, unknown> = {};
    for (const argument of selection.arguments ?? []) {
      const definition = field.args.find((arg) => arg.name === argument.name.value);
      if (definition) args[definition.name] = valueFromAST(argument.value, definition.type, w.variables);
    }
    const type = getNamedType(field.type);
    const connection = type.name.endsWith('Connection');
    if (connection) {
      // On a connection, first is a page size and after a cursor (elsewhere, as in addSteps, after is an item id).
      pageSize(args.first as number | null | undefined);
      decodeCursor(args.after as string | null | undefined, null);
    }
    w.cost += rows;
    if (!selection.selectionSet || !isCompositeType(type)) continue;
    let childRows = rows;
    let childPage: number | null = null;
    if (connection) childPage = (args.first as number | null | undefined) ?? PAGE_SIZE_DEFAULT;
    else if (isListType(getNullableType(field.type))) childRows = rows * (page ?? LIST_GUESS);
    walk(w, selection.selectionSet, type, depth + 1, childRows, childPage);
  }
}

/**
 * Refuses, before execution, what the API would refuse anyway or cannot
 * afford: bad page arguments (TOO_LARGE / BAD_USER_INPUT, as the resolvers
 * would), queries too deep, too costly or with too many aliases (TOO_LARGE),
 * and mutations from a read-only token (FORBIDDEN).
 */
export function requestLimits(): ApolloServerPlugin<Context> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation, document, schema, request, contextValue }) {
          if (!operation) return;
          if (operation.operation === 'mutation' && contextValue.access === 'read') {
            throw refusal('FORBIDDEN', 'This token may only read. Send a token with write access to change anything.', 403);
          }
          const root = operation.operation === 'mutation' ? schema.getMutationType() : operation.operation === 'query' ? schema.getQueryType() : schema.getSubscriptionType();
          if (!root) return;
          const fragments = Object.fromEntries(
            document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === 'FragmentDefinition').map((d) => [d.name.value, d]),
          );
          const w: Walk = { schema, variables: request.variables ?? {}, fragments, cost: 0, aliases: 0, maxDepth: 0 };
          try {
            walk(w, operation.selectionSet, root, 1, 1, null);
          } catch (error) {
            if (isDomainError(error)) throw refusal(error.code, error.message);
            throw error;
          }
          if (w.maxDepth > MAX_DEPTH) {
            throw refusal('TOO_LARGE', `The query nests ${w.maxDepth} levels deep; the limit is ${MAX_DEPTH}. Ask for less at once and follow ids in a second query.`);
          }
          if (w.aliases > MAX_ALIASES) {
            throw refusal('TOO_LARGE', `The request uses ${w.aliases} aliases; the limit is ${MAX_ALIASES}. Split it into several requests.`);
          }
          if (w.cost > MAX_COST) {
            throw refusal(
              'TOO_LARGE',
              `The query could touch about ${w.cost} rows; the limit is ${MAX_COST}. Ask for smaller pages (first) or fewer nested lists, and page with after.`,
            );
          }
        },
      };
    },
  };
}
