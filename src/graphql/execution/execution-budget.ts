import type { ApolloServerPlugin } from '@apollo/server';
import {
  GraphQLError, Kind, defaultFieldResolver, getNamedType, isLeafType, isObjectType,
  type FieldNode, type GraphQLAbstractType, type GraphQLFieldResolver, type GraphQLObjectType, type GraphQLResolveInfo, type GraphQLSchema, type SelectionNode,
} from 'graphql';
// graphql-js's own field collection (fragments, @skip/@include), as its executor runs it; graphql is pinned.
import { collectSubfields } from 'graphql/execution/collectFields.js';
import { nextTurn } from '../../services/kernel/turns.js';
import type { Context } from '../context.js';

/** Characters of text one answer may hold (about 32 MB); past it, execution stops. */
export const RESPONSE_BUDGET_CHARS = 32 * 1024 * 1024;
/**
 * Time a query may spend resolving fields; past it, execution stops. Not for
 * mutations: their root fields run one after another, each a transaction
 * bounded by its own limits, and stopping one midway would not undo the others.
 */
const TIME_BUDGET_MS = 10_000;
/** What each field adds to an answer besides its text: its name, quotes and punctuation. */
const FIELD_OVERHEAD = 16;

/**
 * How long one request resolves fields before it lets the others have a
 * turn (turns.ts). The resolving of a big answer (200 items of 100 linked
 * notes each) runs without a promise once its rows are read, so without this
 * it held the event loop from its first field to its last.
 */
const SLICE_MS = 20;
/**
 * Charges a slice makes at least before it yields. The slice's clock runs
 * from its start, waits for the database included: a request that mostly
 * waits (a list of 12 tasks' notes and comments, a few hundred charges) never
 * yields, so its loaders still batch every row in one statement, while one
 * that resolves thousands of rows at once (some 5 ms of work) does.
 */
const SLICE_CHARGES_MIN = 2_048;

/** Where one request stands against its budgets; made per request in the context. */
export interface ExecutionBudget {
  chars: number;
  deadline: number;
  /** Charges made so far: the clock is read at every TIME_CHECK_EVERY-th one. */
  charges: number;
  /** Set once a budget is spent: every field resolved after it fails at once, so execution winds down. */
  exceeded: GraphQLError | null;
  /** When this request's current slice of resolving began, and its charges then. */
  sliceStart: number;
  sliceCharges: number;
  /** Set when the slice is used up: the fields resolved after it wait for the request's next turn. */
  turn: Promise<void> | null;
  /** True once the clock found the slice used up, until the next turn begins. */
  yieldDue: boolean;
}

export function newBudget(): ExecutionBudget {
  return { chars: 0, deadline: Infinity, charges: 0, exceeded: null, sliceStart: Date.now(), sliceCharges: 0, turn: null, yieldDue: false };
}

/** A budget whose clock runs from now: a query's, or one event of a subscription's (each event is an answer of its own). */
export function runningBudget(): ExecutionBudget {
  return startClock(newBudget());
}

/** Starts a query's clocks as it starts to run: its time budget, and its first slice. */
export function startClock(budget: ExecutionBudget): ExecutionBudget {
  const now = Date.now();
  budget.deadline = now + TIME_BUDGET_MS;
  budget.sliceStart = now;
  budget.sliceCharges = budget.charges;
  return budget;
}

/** The request's next turn, shared by every field that waits for it. */
function turnOf(budget: ExecutionBudget): Promise<void> {
  const asked = Date.now();
  budget.turn ??= nextTurn().then(() => {
    const now = Date.now();
    budget.turn = null;
    budget.yieldDue = false;
    // Time spent waiting for the turn is other requests' time, not this one's to be stopped for.
    budget.deadline += now - asked;
    budget.sliceStart = now;
    budget.sliceCharges = budget.charges;
  });
  return budget.turn;
}

/**
 * For a reader about to load rows holding `chars` characters of text: spends
 * the budget (and throws) when they could not fit in what is left of the
 * answer, so they are never read. The text is not charged here; the fields
 * that show it are, as they resolve.
 */
export function refuseUnlessItFits(budget: ExecutionBudget, chars: number): void {
  if (budget.exceeded) throw budget.exceeded;
  if (budget.chars + chars <= RESPONSE_BUDGET_CHARS) return;
  budget.exceeded = overBudget('size');
  throw budget.exceeded;
}

function overBudget(kind: 'size' | 'time'): GraphQLError {
  const what = kind === 'size'
    ? `The answer would be over ${RESPONSE_BUDGET_CHARS / 1024 / 1024} MB`
    : `The query ran for over ${TIME_BUDGET_MS / 1000} s`;
  return new GraphQLError(
    `${what}, so it was stopped and nothing of it is sent. Ask for less at once: smaller pages (first), fewer nested lists, ` +
      'or fewer text fields, and follow pageInfo.endCursor for the rest. A mutation in the same request was recorded all the same; read it back with a smaller query.',
    { extensions: { code: 'TOO_LARGE', budget: kind } },
  );
}

/** What a field holding `value` adds to an answer. */
function sizeOf(value: unknown): number {
  let chars = FIELD_OVERHEAD;
  if (typeof value === 'string') chars += value.length;
  else if (Array.isArray(value)) for (const entry of value) chars += typeof entry === 'string' ? entry.length + 3 : 8;
  return chars;
}

/**
 * The clock is read at one charge in this many: a dashboard read charges
 * some 400 times, and a query past its 10 s is still stopped within a few
 * dozen fields of it.
 */
const TIME_CHECK_EVERY = 32;

function spend(budget: ExecutionBudget, chars: number): void {
  budget.chars += chars;
  if (budget.chars > RESPONSE_BUDGET_CHARS) budget.exceeded = overBudget('size');
  else if (++budget.charges % TIME_CHECK_EVERY === 0) {
    const now = Date.now();
    if (now > budget.deadline) budget.exceeded = overBudget('time');
    else if (now - budget.sliceStart >= SLICE_MS && budget.charges - budget.sliceCharges >= SLICE_CHARGES_MIN) budget.yieldDue = true;
  }
  if (budget.exceeded) throw budget.exceeded;
}

function charge(budget: ExecutionBudget, value: unknown): void {
  spend(budget, sizeOf(value));
}

/**
 * Counts an answer while it is built: the text it holds and the time it took.
 * Once either budget is spent the field at hand fails, and so does every field
 * with a resolver after it, so execution stops building the answer instead of
 * running the process out of memory; the plugin below then sends one
 * TOO_LARGE error in place of what was built. The estimate refuses most such
 * queries before they run; this holds for what it cannot see (long texts,
 * many links or citations).
 *
 * Only fields that resolve are wrapped. A plain leaf (a property of the row,
 * no resolver: most of an answer's fields) is left to the executor's own
 * property read, which graphql-jit inlines; it is charged with its object,
 * when the field holding that object resolves, from the object's selection
 * (worked out once per query and type). Measured on the dashboard read and
 * mustRead: wrapping every leaf cost 5-8 % of their profiles.
 */
export function budgetedSchema(schema: GraphQLSchema): void {
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__') || !isObjectType(type)) continue;
    for (const field of Object.values(type.getFields())) {
      const leaf = isLeafType(getNamedType(field.type));
      if (leaf && !field.resolve) continue;
      const resolve = field.resolve ?? defaultFieldResolver;
      const budgeted: GraphQLFieldResolver<unknown, Context> = (source, args, context, info) => {
        const { budget } = context;
        if (budget.exceeded) throw budget.exceeded;
        // The slice is used up: this field, and every one after it in this request, waits for the request's next turn.
        if (budget.yieldDue) return turnOf(budget).then(() => budgeted(source, args, context, info));
        const result = resolve(source, args, context, info);
        if (leaf) {
          if (result instanceof Promise) return result.then((value) => (charge(budget, value), value));
          charge(budget, result);
          return result;
        }
        // An object's size is its plain leaves, charged here, and its other fields, charged as they resolve.
        if (result instanceof Promise) return result.then((value) => (chargeObjects(budget, value, info, context), value));
        chargeObjects(budget, result, info, context);
        return result;
      };
      field.resolve = budgeted;
    }
  }
}

/** An object field's value (an object, a list of them, nested lists, or null): its entry, and each object's plain leaves. */
function chargeObjects(budget: ExecutionBudget, value: unknown, info: GraphQLResolveInfo, context: Context): void {
  charge(budget, undefined);
  chargeEach(budget, value, info, context);
}

function chargeEach(budget: ExecutionBudget, value: unknown, info: GraphQLResolveInfo, context: Context, leaves?: PlainLeaves): void {
  if (value === null || value === undefined) return;
  if (Array.isArray(value)) {
    // A list of one object type: its selection is looked up once for the whole list.
    const named = getNamedType(info.returnType);
    const known = leaves ?? (isObjectType(named) ? plainLeavesOf(info, named) : undefined);
    for (const entry of value) chargeEach(budget, entry, info, context, known);
    return;
  }
  // A list entry still to come (rare): charged when it comes; an overrun it finds fails the fields after it.
  if (value instanceof Promise) {
    value.then((entry) => chargeEach(budget, entry, info, context, leaves)).catch(() => undefined);
    return;
  }
  const source = value as Record<string, unknown>;
  let chars = 0;
  for (const [, fieldName] of leaves ?? plainLeavesOf(info, runtimeTypeOf(info, source, context))) chars += sizeOf(source[fieldName]);
  spend(budget, chars);
}

function runtimeTypeOf(info: GraphQLResolveInfo, source: unknown, context: Context): GraphQLObjectType {
  const named = getNamedType(info.returnType);
  if (isObjectType(named)) return named;
  const abstract = named as GraphQLAbstractType;
  // The schema's interfaces tell their types apart synchronously, by class (see memory.type.ts).
  const name = abstract.resolveType?.(source, context, info, abstract);
  const type = typeof name === 'string' ? info.schema.getType(name) : undefined;
  return isObjectType(type) ? type : info.schema.getPossibleTypes(abstract)[0];
}

type PlainLeaves = readonly (readonly [responseKey: string, fieldName: string])[];
/**
 * Per run of field nodes of a document (the nodes one response key merges), per type: the plain leaves
 * its selection asks for. Keyed by every node, not the first: a fragment's field is one node wherever the
 * fragment is spread, merged in one place with fields that another place does not have.
 */
interface LeafCacheEntry { byType?: Map<GraphQLObjectType, PlainLeaves>; next?: WeakMap<FieldNode, LeafCacheEntry> }
const plainLeafCache = new WeakMap<FieldNode, LeafCacheEntry>();

function leafCacheEntry(nodes: readonly FieldNode[], create: boolean): LeafCacheEntry | undefined {
  let level = plainLeafCache;
  let entry: LeafCacheEntry | undefined;
  for (const node of nodes) {
    entry = level.get(node);
    if (!entry) {
      if (!create) return undefined;
      level.set(node, (entry = {}));
    }
    level = entry.next ??= new WeakMap();
  }
  return entry;
}

function plainLeavesOf(info: GraphQLResolveInfo, type: GraphQLObjectType): PlainLeaves {
  const known = leafCacheEntry(info.fieldNodes, false)?.byType?.get(type);
  if (known) return known;
  const selected = collectSubfields(info.schema, info.fragments, info.variableValues, type, info.fieldNodes);
  const fields = type.getFields();
  const leaves: [string, string][] = [];
  for (const [key, nodes] of selected) {
    const field = fields[nodes[0].name.value];
    if (field && !field.resolve) leaves.push([key, field.name]);
  }
  // A selection with @skip or @include depends on the variables: worked out again each time.
  if (!info.fieldNodes.some((field) => variesWithVariables(field.selectionSet?.selections ?? [], info.fragments))) {
    const entry = leafCacheEntry(info.fieldNodes, true)!;
    (entry.byType ??= new Map()).set(type, leaves);
  }
  return leaves;
}

function variesWithVariables(selections: readonly SelectionNode[], fragments: GraphQLResolveInfo['fragments']): boolean {
  return selections.some((selection) => Boolean(selection.directives?.length)
    || (selection.kind === Kind.INLINE_FRAGMENT && variesWithVariables(selection.selectionSet.selections, fragments))
    || (selection.kind === Kind.FRAGMENT_SPREAD && variesWithVariables(fragments[selection.name.value]?.selectionSet.selections ?? [], fragments)));
}

/** What a query stopped by a budget answers, whichever way it ran (here, or repeated-queries.ts): no data, one TOO_LARGE error. */
export function tooLargeAnswer(exceeded: GraphQLError) {
  return { data: null, errors: [{ message: exceeded.message, extensions: { code: 'TOO_LARGE' } }] };
}

/**
 * Starts a query's clock when it starts to run. A query stopped by a budget answers one TOO_LARGE error and no data: what
 * was built is dropped, not sent. A mutation keeps the answers of the fields
 * that finished, with the error at the path of the one that did not (root
 * mutation fields are nullable), since what it recorded stays recorded.
 */
export function executionBudget(): ApolloServerPlugin<Context> {
  return {
    async requestDidStart() {
      return {
        async executionDidStart({ contextValue, operation }) {
          if (operation.operation !== 'mutation') startClock(contextValue.budget);
          else {
            contextValue.budget.sliceStart = Date.now();
            contextValue.budget.sliceCharges = contextValue.budget.charges;
          }
        },
        async willSendResponse({ response, contextValue, operation }) {
          const exceeded = contextValue.budget.exceeded;
          if (!exceeded || response.body.kind !== 'single' || operation?.operation === 'mutation') return;
          response.body.singleResult = tooLargeAnswer(exceeded);
        },
      };
    },
  };
}
