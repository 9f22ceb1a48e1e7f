import type { ApolloServerPlugin } from '@apollo/server';
import {
  GraphQLError, Kind, getNamedType, getVariableValues, isCompositeType, valueFromAST, visit,
  type DirectiveNode, type DocumentNode, type ValueNode, type FieldNode, type OperationDefinitionNode, type SelectionNode, type FragmentDefinitionNode, type GraphQLCompositeType, type GraphQLSchema, type SelectionSetNode,
} from 'graphql';
import { decodeChangeCursor } from '../../domain/change-cursor.js';
import { DomainError, isDomainError, type ErrorCode } from '../../domain/errors.js';
import { linksAsked } from '../../domain/task-rules.js';
import { LIST_CURSOR, ROW_CURSOR, SEARCH_CURSOR, SESSION_CURSOR, STUCK_CURSOR, UPDATED_CURSOR, decodeCursor, pageSize, type CursorKeyType } from '../../domain/paging.js';
import type { Context } from '../context.js';
import { NESTED_TOO_DEEP } from '../errors.js';
import { MAX_COST, MAX_PLANNED_CHARS, plannedChars, queryCost } from './query-cost.js';

/** Fields nested deeper than this are refused: no dashboard view needs more, and each level can multiply the work. */
const MAX_DEPTH = 15;
/** Aliased fields in one request (introspection included). */
const MAX_ALIASES = 50;

/** The key each connection's cursor holds (domain/paging.ts); a keyset list of rows unless named here. */
const CURSOR_OF: Record<string, readonly CursorKeyType[]> = {
  'Task.items': LIST_CURSOR,
  'Query.search': SEARCH_CURSOR,
  'Query.sessions': SESSION_CURSOR,
  'Query.stuckItems': STUCK_CURSOR,
};

/** Lists paged by the change log's own cursor (domain/change-cursor.ts), a LoggedChange.id. */
const CHANGE_LOG_CURSOR = new Set(['Query.changes', 'Query.activity']);

function refusal(code: ErrorCode | 'BAD_REQUEST', message: string, status = 400): GraphQLError {
  return new GraphQLError(message, { extensions: { code, http: { status } } });
}

class OverLimit extends Error {}

interface Walk {
  schema: GraphQLSchema;
  variables: Record<string, unknown>;
  fragments: Record<string, FragmentDefinitionNode>;
  mutation: boolean;
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
 * Checks, before any of it runs, every argument the operation passes
 * anywhere: on every connection its page size and cursor, read as that
 * list reads it (a cursor of another kind of list is refused here, not by
 * the database). Text is the services' to check (domain/text-rules.ts), so
 * every surface gets the same answer. Inside a mutation's answer, `after` is
 * refused outright: the lists it would page are read after the change, so
 * whether a cursor belongs to them cannot be known before; refusing it then
 * would answer "refused" for a change that was recorded. Counts depth and
 * aliases as it goes.
 */
function walk(w: Walk, sets: readonly SelectionSetNode[], parent: GraphQLCompositeType, depth: number): SelectionSetNode {
  if (depth > w.maxDepth) w.maxDepth = depth;
  const selections: SelectionNode[] = [];
  for (const { type, fields } of collect(w, sets, parent).values()) {
    const [node] = fields;
    w.aliases += fields.filter((field) => field.alias).length;
    if (w.aliases > MAX_ALIASES || depth > MAX_DEPTH) throw new OverLimit();
    const name = node.name.value;
    // Introspection: Apollo caps its depth, and its size does not grow with the data.
    const field = name.startsWith('__') || !('getFields' in type) ? undefined : type.getFields()[name];
    if (!field) {
      selections.push(asRun(node, type, parent, undefined));
      continue;
    }
    const args: Record<string, unknown> = {};
    for (const argument of node.arguments ?? []) {
      const definition = field.args.find((arg) => arg.name === argument.name.value);
      if (!definition) continue;
      args[definition.name] = valueFromAST(argument.value, definition.type, w.variables);
    }
    const named = getNamedType(field.type);
    // A list's first is checked here too, once, rather than by its resolver on each of 200 rows.
    if (`${type.name}.${name}` === 'Item.related') linksAsked(args.first as number | null | undefined);
    if (named.name.endsWith('Connection')) {
      // On a connection, first is a page size and after a cursor (elsewhere, as in addSteps, after is an item id).
      pageSize(args.first as number | null | undefined);
      const after = args.after as string | null | undefined;
      if (w.mutation && after !== null && after !== undefined) {
        throw new DomainError(
          'BAD_USER_INPUT',
          `${type.name}.${name} takes no after inside a mutation's answer: the lists it answers are read after the change, so a cursor cannot be checked before it. ` +
            'Nothing was recorded. Ask for the first page here (first), and page on with a query.',
        );
      }
      if (CHANGE_LOG_CURSOR.has(`${type.name}.${name}`)) decodeChangeCursor(after);
      // A memories page read most recently changed first keys on (updatedAt, id); by id otherwise.
      else if (`${type.name}.${name}` === 'Query.memories' && args.order === 'RECENTLY_UPDATED') decodeCursor(after, UPDATED_CURSOR);
      else decodeCursor(after, CURSOR_OF[`${type.name}.${name}`] ?? ROW_CURSOR);
    }
    const children = fields.flatMap((each) => (each.selectionSet ? [each.selectionSet] : []));
    const run = children.length > 0 && isCompositeType(named) ? walk(w, children, named, depth + 1) : undefined;
    selections.push(asRun(node, type, parent, run));
  }
  return { kind: Kind.SELECTION_SET, selections };
}

/**
 * One field as execution runs it: its overlapping selections merged, its
 * @skip/@include already applied, inside an inline fragment when it is asked
 * on a narrower type than its parent's.
 */
function asRun(node: FieldNode, type: GraphQLCompositeType, parent: GraphQLCompositeType, selectionSet: SelectionSetNode | undefined): SelectionNode {
  const field: FieldNode = { ...node, directives: [], selectionSet };
  if (type === parent) return field;
  return {
    kind: Kind.INLINE_FRAGMENT,
    typeCondition: { kind: Kind.NAMED_TYPE, name: { kind: Kind.NAME, value: type.name } },
    selectionSet: { kind: Kind.SELECTION_SET, selections: [field] },
  };
}

/**
 * The limits every operation is held to before it runs, whichever way it
 * comes (POST /graphql, or a subscription over WebSocket): page arguments and
 * cursors anywhere in it, depth, aliases and the estimated fields it could
 * resolve. Throws the refusal (a GraphQLError with extensions.code).
 */
export function checkOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): void {
  // The variables as execution will see them (defaults applied, types coerced); when they do not coerce, execution says why.
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables);
  if (coerced.errors) return;
  checkCoercedOperation(schema, document, operation, coerced.coerced);
}

/** checkOperation on variables already coerced (repeated-queries.ts coerces them once for the check and its own test). */
export function checkCoercedOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  coerced: { [variable: string]: unknown },
): void {
  const root = operation.operation === 'mutation' ? schema.getMutationType()
    : operation.operation === 'subscription' ? schema.getSubscriptionType() : schema.getQueryType();
  if (!root) return;
  const passes = passedChecks(schema, document, operation);
  const key = passes.keyOf(coerced);
  if (passes.keys.has(key)) return;
  checkCoerced(schema, document, operation, root, coerced);
  if (passes.keys.size >= PASSES_KEPT) passes.keys.clear();
  passes.keys.add(key);
}

/**
 * What the check's outcome depends on besides the operation itself: the
 * values of the variables it reads, which are those in page arguments (first,
 * after: the page sizes, cursors and the estimate) and in @skip/@include. An
 * operation sent again with the same of those (the dashboard's reads, with
 * another task's id) passes as it passed before, without the walk and the
 * estimate again, which cost as much as resolving a small answer.
 */
interface PassedChecks {
  keyOf: (variables: Record<string, unknown>) => string;
  /** The keys of the variables' values this operation passed with (refusals are checked again each time). */
  keys: Set<string>;
}
/** Distinct passing values kept per operation; past this many it starts over. */
const PASSES_KEPT = 200;
/** By schema, then by the parsed document: Apollo hands every request of the same text the same document. */
const passedBySchema = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, Map<OperationDefinitionNode, PassedChecks>>>();

function passedChecks(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): PassedChecks {
  let byDocument = passedBySchema.get(schema);
  if (!byDocument) passedBySchema.set(schema, (byDocument = new WeakMap()));
  let byOperation = byDocument.get(document);
  if (!byOperation) byDocument.set(document, (byOperation = new Map()));
  let passes = byOperation.get(operation);
  if (!passes) {
    const names = [...variablesTheCheckReads(document)].sort();
    passes = { keys: new Set(), keyOf: (values) => JSON.stringify(names.map((name) => values[name] ?? null)) };
    byOperation.set(operation, passes);
  }
  return passes;
}

/** The variables used anywhere in the document in a `first` or `after` argument or in a directive (a superset of what the check reads). */
function variablesTheCheckReads(document: DocumentNode): Set<string> {
  const names = new Set<string>();
  const read = (value: ValueNode): void => {
    if (value.kind === Kind.VARIABLE) names.add(value.name.value);
    else if (value.kind === Kind.LIST) value.values.forEach(read);
    else if (value.kind === Kind.OBJECT) for (const field of value.fields) read(field.value);
  };
  visit(document, {
    Argument: (argument) => {
      if (argument.name.value === 'first' || argument.name.value === 'after') read(argument.value);
    },
    Directive: (directive) => { for (const argument of directive.arguments ?? []) read(argument.value); },
  });
  return names;
}

/** The check itself, on variables already coerced. */
function checkCoerced(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  root: GraphQLCompositeType,
  coerced: { [variable: string]: unknown },
): void {
  const fragments = Object.fromEntries(
    document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === 'FragmentDefinition').map((d) => [d.name.value, d]),
  );
  const w: Walk = { schema, variables: coerced, fragments, mutation: operation.operation === 'mutation', aliases: 0, maxDepth: 0 };
  let run: SelectionSetNode;
  try {
    run = walk(w, [operation.selectionSet], root, 1);
  } catch (error) {
    if (isDomainError(error)) throw refusal(error.code, error.message);
    if (error instanceof RangeError) throw refusal('TOO_LARGE', NESTED_TOO_DEEP);
    if (!(error instanceof OverLimit)) throw error;
    run = operation.selectionSet;
  }
  if (w.maxDepth > MAX_DEPTH) {
    throw refusal('TOO_LARGE', `The query nests more than ${MAX_DEPTH} levels deep. Ask for less at once and follow ids in a second query.`);
  }
  if (w.aliases > MAX_ALIASES) {
    throw refusal('TOO_LARGE', `The request uses more than ${MAX_ALIASES} aliases. Split it into several requests.`);
  }
  let cost: number;
  let chars: number;
  try {
    // The estimate reads the operation as it runs (fragments spread once, fields merged): a fragment spread twice at
    // each of 25 levels runs in 25 steps, and the library, reading the document as written, would take 2^25.
    const asRunDocument: DocumentNode = { kind: Kind.DOCUMENT, definitions: [{ ...operation, selectionSet: run }] };
    cost = queryCost(schema, asRunDocument, coerced);
    chars = plannedChars(schema, asRunDocument, coerced);
  } catch {
    // Only a document too big to count (over 10,000 selections counted) gets here.
    throw refusal('TOO_LARGE', 'The query has too many fields to check. Split it into several requests.');
  }
  if (cost > MAX_COST) {
    throw refusal(
      'TOO_LARGE',
      `The query could resolve about ${cost.toLocaleString('en-US')} fields, over the limit of ${MAX_COST.toLocaleString('en-US')}, counting each list at the most it can hold ` +
        '(history items 500 per change, related 100 per item). Ask for smaller pages (first), fewer nested lists or fewer fields, and page with after.',
    );
  }
  if (chars > MAX_PLANNED_CHARS) {
    const mb = (value: number) => `${Math.ceil(value / 1024 / 1024).toLocaleString('en-US')} MB`;
    throw refusal(
      'TOO_LARGE',
      `The query could carry about ${mb(chars)} of linked notes' and tasks' text (body, goal), over the limit of ${mb(MAX_PLANNED_CHARS)} one query may plan, ` +
        'counting each list at the most it can hold (pages at their first, related 100 per item) and each body or goal at 20,000 characters; nothing was read. ' +
        'Narrow it: ask for fewer items (items(first: 10)) or fewer links per item (related(first: 10)), or ask related for id and title only ' +
        'and read a note\'s body with memory(id:).',
    );
  }
}

/** Why no operation of the document was picked: several and no operationName, or a name none of them has. */
function unresolvedOperation(document: DocumentNode, operationName: string | null | undefined): GraphQLError {
  const names = document.definitions.flatMap((definition) =>
    definition.kind === Kind.OPERATION_DEFINITION ? [definition.name?.value ?? '(unnamed)'] : []);
  const listed = names.map((name) => `"${name}"`).join(', ');
  return refusal('BAD_REQUEST', operationName
    ? `The document has no operation named "${operationName}"; its operations are ${listed}. Send operationName naming one of them.`
    : `The document has ${names.length} operations (${listed}) and the request names none. Send operationName naming the one to run, or send one operation per request.`);
}

/**
 * Refuses, before execution, what the API would refuse anyway or cannot
 * afford: bad arguments anywhere in the operation (as the resolvers would),
 * queries too deep, with too many aliases or too costly (TOO_LARGE), and a
 * subscription sent as an HTTP request (BAD_REQUEST).
 */
export function requestLimits(): ApolloServerPlugin<Context> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation, document, schema, request }) {
          if (!operation) throw unresolvedOperation(document, request.operationName);
          if (operation.operation === 'subscription') {
            throw refusal('BAD_REQUEST', 'POST /graphql runs queries and mutations; subscriptions run over a WebSocket on /graphql (graphql-ws). Send a query or a mutation here.');
          }
          checkOperation(schema, document, operation, request.variables ?? {});
        },
      };
    },
  };
}
