import type { ApolloServerPlugin } from '@apollo/server';
import {
  GraphQLError, getNamedType, getNullableType, getVariableValues, isCompositeType, isListType, valueFromAST,
  type DirectiveNode, type FieldNode, type FragmentDefinitionNode, type GraphQLCompositeType, type GraphQLSchema, type SelectionSetNode,
} from 'graphql';
import { isDomainError, type ErrorCode } from '../domain/errors.js';
import { PAGE_SIZE_DEFAULT, decodeCursor, pageSize } from '../domain/paging.js';
import type { Context } from './context.js';

/** Fields nested deeper than this are refused: no dashboard view needs more, and each level can multiply the work. */
export const MAX_DEPTH = 15;
/** An estimate of the rows a query can touch (each field once per parent row it is asked of); over it, refused. */
export const MAX_COST = 200_000;
/** Aliased fields in one request (introspection included). */
export const MAX_ALIASES = 50;
/** A list that is not a connection (related, children, refs) is assumed to hold this many rows... */
const LIST_GUESS = 10;
/** ...unless it is known to hold more. */
const LIST_SIZES: Record<string, number> = {
  'Query.mustRead': 200,
  'Query.domains': 200,
  // A history row holds the list after it: typically tens of items (a plan's steps), at most 500.
  'TaskEvent.items': 50,
  'Task.inProgress': 100,
  'PlanPayload.plan': 1,
};

function refusal(code: ErrorCode, message: string, status = 400): GraphQLError {
  return new GraphQLError(message, { extensions: { code, http: { status } } });
}

class OverLimit extends Error {}

interface Walk {
  schema: GraphQLSchema;
  variables: Record<string, unknown>;
  fragments: Record<string, FragmentDefinitionNode>;
  cost: number;
  aliases: number;
  maxDepth: number;
}

/** @skip(if:) and @include(if:), as execution will read them. */
function included(w: Walk, directives: readonly DirectiveNode[] | undefined): boolean {
  for (const directive of directives ?? []) {
    const name = directive.name.value;
    if (name !== 'skip' && name !== 'include') continue;
    const condition = directive.arguments?.find((arg) => arg.name.value === 'if');
    const value = condition ? valueFromAST(condition.value, w.schema.getDirective(name)!.args[0].type, w.variables) : undefined;
    if (name === 'skip' && value === true) return false;
    if (name === 'include' && value === false) return false;
  }
  return true;
}

/**
 * The fields a selection runs, as execution collects them: grouped by the
 * type they are asked on and their response key (repeated and overlapping
 * selections run once), each fragment spread once per selection, skipped
 * ones left out. Without this, a document that spreads a fragment twice at
 * each of 25 levels would cost the check 2^25 steps.
 */
function collect(w: Walk, sets: readonly SelectionSetNode[], parent: GraphQLCompositeType): Map<string, { type: GraphQLCompositeType; fields: FieldNode[] }> {
  const groups = new Map<string, { type: GraphQLCompositeType; fields: FieldNode[] }>();
  const spread = new Set<string>();
  const visit = (set: SelectionSetNode, type: GraphQLCompositeType) => {
    for (const selection of set.selections) {
      if (!included(w, selection.directives)) continue;
      if (selection.kind === 'Field') {
        const key = `${type.name}.${selection.alias?.value ?? selection.name.value}`;
        const group = groups.get(key) ?? { type, fields: [] };
        group.fields.push(selection);
        groups.set(key, group);
        continue;
      }
      if (selection.kind === 'FragmentSpread') {
        if (spread.has(selection.name.value)) continue;
        spread.add(selection.name.value);
      }
      const fragment = selection.kind === 'FragmentSpread' ? w.fragments[selection.name.value] : selection;
      if (!fragment) continue;
      const condition = fragment.typeCondition ? w.schema.getType(fragment.typeCondition.name.value) : type;
      if (condition && isCompositeType(condition)) visit(fragment.selectionSet, condition);
    }
  };
  for (const set of sets) visit(set, parent);
  return groups;
}

/**
 * Checks a whole operation before any of it runs: page arguments of every
 * connection in it (so a mutation is never recorded and then refused for its
 * result's `first`), depth, aliases and an estimated cost. A connection's
 * nodes and edges count once per row of its page (`first`, 50 by default).
 */
function walk(w: Walk, sets: readonly SelectionSetNode[], parent: GraphQLCompositeType, depth: number, rows: number, page: number | null): void {
  if (depth > w.maxDepth) w.maxDepth = depth;
  for (const { type, fields } of collect(w, sets, parent).values()) {
    const [node] = fields;
    w.aliases += fields.filter((field) => field.alias).length;
    w.cost += rows;
    if (w.cost > MAX_COST || w.aliases > MAX_ALIASES || depth > MAX_DEPTH) throw new OverLimit();
    const name = node.name.value;
    // Introspection costs its row; Apollo caps its depth, and its size does not grow with the data.
    if (name.startsWith('__') || !('getFields' in type)) continue;
    const field = type.getFields()[name];
    if (!field) continue;
    const args: Record<string, unknown> = {};
    for (const argument of node.arguments ?? []) {
      const definition = field.args.find((arg) => arg.name === argument.name.value);
      if (definition) args[definition.name] = valueFromAST(argument.value, definition.type, w.variables);
    }
    const named = getNamedType(field.type);
    const connection = named.name.endsWith('Connection');
    if (connection) {
      // On a connection, first is a page size and after a cursor (elsewhere, as in addSteps, after is an item id).
      pageSize(args.first as number | null | undefined);
      decodeCursor(args.after as string | null | undefined, null);
    }
    const sets = fields.flatMap((field) => (field.selectionSet ? [field.selectionSet] : []));
    if (sets.length === 0 || !isCompositeType(named)) continue;
    let childRows = rows;
    let childPage: number | null = null;
    if (connection) childPage = (args.first as number | null | undefined) ?? PAGE_SIZE_DEFAULT;
    else if (isListType(getNullableType(field.type))) childRows = rows * (page ?? LIST_SIZES[`${type.name}.${name}`] ?? LIST_GUESS);
    walk(w, sets, named, depth + 1, childRows, childPage);
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
          // The variables as execution will see them (defaults applied, types coerced); when they do not coerce, execution says why.
          const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], request.variables ?? {});
          if (coerced.errors) return;
          const fragments = Object.fromEntries(
            document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === 'FragmentDefinition').map((d) => [d.name.value, d]),
          );
          const w: Walk = { schema, variables: coerced.coerced, fragments, cost: 0, aliases: 0, maxDepth: 0 };
          try {
            walk(w, [operation.selectionSet], root, 1, 1, null);
          } catch (error) {
            if (isDomainError(error)) throw refusal(error.code, error.message);
            if (!(error instanceof OverLimit)) throw error;
          }
          if (w.maxDepth > MAX_DEPTH) {
            throw refusal('TOO_LARGE', `The query nests more than ${MAX_DEPTH} levels deep. Ask for less at once and follow ids in a second query.`);
          }
          if (w.aliases > MAX_ALIASES) {
            throw refusal('TOO_LARGE', `The request uses more than ${MAX_ALIASES} aliases. Split it into several requests.`);
          }
          if (w.cost > MAX_COST) {
            throw refusal(
              'TOO_LARGE',
              `The query could touch more than ${MAX_COST} rows. Ask for smaller pages (first) or fewer nested lists, and page with after.`,
            );
          }
        },
      };
    },
  };
}
