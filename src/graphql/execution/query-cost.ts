import { getNamedType, getNullableType, isLeafType, isListType, isObjectType, isInterfaceType, type DocumentNode, type GraphQLSchema } from 'graphql';
import { getComplexity, type ComplexityEstimator } from 'graphql-query-complexity';
import { BRIEF_DEPENDS_ON_MAX, BRIEF_ITEMS_MAX } from '../../domain/briefs.js';
import { CLAIMS_PER_SESSION_MAX } from '../../domain/claims.js';
import { FREE_TEXT_MAX, ITEMS_PER_CALL_MAX, ITEMS_PER_TASK_MAX } from '../../domain/text-rules.js';
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from '../../domain/paging.js';
import { MAX_ITEMS_CEILING, MAX_TEXT_CEILING } from '../../domain/plan-rules.js';
import { REFS_PER_TEXT_MAX } from '../../domain/refs.js';
import { HELPERS_PER_SESSION_MAX, RECENT_SESSIONS_MAX } from '../../domain/session-limits.js';
import { LINKS_PER_ITEM_MAX } from '../../domain/task-rules.js';
import { DOMAINS_LISTED_MAX, MUST_READ_MAX } from '../../services/memories/memory-reader.js';
import { REMINDER_TASKS_MAX } from '../../services/reminders/reminder.service.js';
import { DELIVERIES_MAX, WEBHOOKS_SERVER_MAX } from '../../services/webhooks/webhook.service.js';

/**
 * An estimate of the fields a query resolves: each field once per parent row
 * it is asked of, a list's fields once per row the list can hold at most.
 * Measured on this machine: about 4 µs and 100 bytes per field resolved, so
 * 1,000,000 fields is about 4 s of one process's time; a query that could
 * cost more is refused before it runs.
 */
export const MAX_COST = 1_000_000;

/** A task note's refs: what its texts cite (at most REFS_PER_TEXT_MAX in all) and the items it waits for. */
const NOTE_REFS = REFS_PER_TEXT_MAX + BRIEF_DEPENDS_ON_MAX;

/**
 * The most rows each list that is not a connection can hold, from the limits
 * that bound it. Every list field of the schema is here (a test checks it),
 * so a new list cannot fall back to a guess.
 */
const LIST_BOUNDS: Record<string, number> = {
  // A history row holds the list after the change: the task's live items.
  'TaskEvent.items': ITEMS_PER_TASK_MAX,
  // Only a plan's list (MAX_ITEMS_CEILING steps) is rewritten whole: its items are matched by id, and a kept
  // item keeps its text, so each item after has at most two changes (state, moved; added is one), and one per
  // item removed. A task's changes touch at most ITEMS_PER_CALL_MAX items at once.
  'TaskEvent.changes': Math.max(3 * MAX_ITEMS_CEILING, 2 * ITEMS_PER_CALL_MAX),
  // A logged change carries the item changes of its history row.
  'LoggedChange.itemChanges': Math.max(3 * MAX_ITEMS_CEILING, 2 * ITEMS_PER_CALL_MAX),
  'Task.inProgress': ITEMS_PER_TASK_MAX,
  // One session at most per live item holds its claim.
  'Task.claimedBy': ITEMS_PER_TASK_MAX,
  'Task.goalRefs': REFS_PER_TEXT_MAX,
  'Item.related': LINKS_PER_ITEM_MAX,
  // Each once, from every brief on the item; a brief waits only for the task's live items.
  'Item.dependsOn': ITEMS_PER_TASK_MAX,
  'Brief.dependsOn': BRIEF_DEPENDS_ON_MAX,
  // Edges only join items of one task, each once.
  'Item.blockedBy': ITEMS_PER_TASK_MAX,
  'Item.blocks': ITEMS_PER_TASK_MAX,
  'Session.claims': CLAIMS_PER_SESSION_MAX,
  'Query.ready': PAGE_SIZE_MAX,
  'TaskNote.items': BRIEF_ITEMS_MAX,
  'Comment.refs': REFS_PER_TEXT_MAX,
  'TaskNote.refs': NOTE_REFS,
  // Per row of the page: the connection multiplies its fields by its page size.
  'CommentConnection.refs': REFS_PER_TEXT_MAX,
  'TaskNoteConnection.refs': NOTE_REFS,
  'Session.children': HELPERS_PER_SESSION_MAX,
  'Reminder.tasks': REMINDER_TASKS_MAX,
  'Query.mustRead': MUST_READ_MAX,
  'Query.domains': DOMAINS_LISTED_MAX,
  'Query.recentSessions': RECENT_SESSIONS_MAX,
  'Query.webhooks': WEBHOOKS_SERVER_MAX,
  'Webhook.deliveries': DELIVERIES_MAX,
  'CreateTaskPayload.items': ITEMS_PER_CALL_MAX,
  'ItemsPayload.items': ITEMS_PER_CALL_MAX,
};

const isConnection = (typeName: string) => typeName.endsWith('Connection');

/**
 * A field costs itself plus its children once per row: a connection's
 * children once per row of its page (first, 50 by default; its pageInfo and
 * totalCount are counted per row too, which overstates them a little), a
 * list's once per row it can hold, a connection's nodes and edges once (the
 * connection already counted the page).
 */
const estimator: ComplexityEstimator = ({ type, field, args, childComplexity }) => {
  const named = getNamedType(field.type);
  if (isConnection(named.name)) return 1 + ((args.first as number | undefined) ?? PAGE_SIZE_DEFAULT) * childComplexity;
  if (!isListType(getNullableType(field.type)) || isLeafType(named) || field.name.startsWith('__')) return 1 + childComplexity;
  if (isConnection(type.name) && (field.name === 'nodes' || field.name === 'edges')) return 1 + childComplexity;
  // Introspection lists (types, fields) have no entry: their size does not grow with the data.
  return 1 + listBound(type.name, field.name, args) * childComplexity;
};

/** The estimated cost of the operation `operationName` of `document`. Throws a GraphQLError when its node count alone is too many. */
export function queryCost(schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown>): number {
  return getComplexity({ schema, query: document, variables, estimators: [estimator], maxQueryNodes: 20_000 });
}

/** List fields of object types (introspection left out) with no bound in LIST_BOUNDS: a test keeps this empty. */
export function listsWithoutBound(schema: GraphQLSchema): string[] {
  const missing: string[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__') || !(isObjectType(type) || isInterfaceType(type))) continue;
    for (const field of Object.values(type.getFields())) {
      const named = getNamedType(field.type);
      if (!isListType(getNullableType(field.type)) || isLeafType(named)) continue;
      if (isConnection(type.name) && (field.name === 'nodes' || field.name === 'edges')) continue;
      if (!(`${type.name}.${field.name}` in LIST_BOUNDS)) missing.push(`${type.name}.${field.name}`);
    }
  }
  return missing;
}

/**
 * The text of linked memories an answer could hold, counted before it runs:
 * each list at its bound (as the estimate above), each memory's long text at
 * its longest. A note is stored once and linked from any number of items, so
 * this text is the one a small database can answer many times over: 100
 * notes linked from each of 200 items are 2 MB stored and 400 MB answered.
 * The answer budget (execution-budget.ts) would stop such an answer while it
 * is read and resolved, a second of work each time; past this it is refused
 * before anything is read. Other text is answered at most once per row
 * stored, so the answer budget and the pre-read size checks bound it.
 */
export const MAX_PLANNED_CHARS = 32 * 1024 * 1024;

/** Text that cites items may render each of its (at most 100) [[#id]] tokens as "[#123 Label]". */
const RENDERED_MAX = FREE_TEXT_MAX + REFS_PER_TEXT_MAX * (MAX_TEXT_CEILING + 16);

/** The long texts of the memory types (Note, Task), at their longest; their titles and domains (200 each) are left out. */
const MEMORY_TEXTS: Record<string, number> = {
  'Note.body': FREE_TEXT_MAX,
  'Task.goal': FREE_TEXT_MAX,
  'Task.goalText': RENDERED_MAX,
};

/** As `estimator`, in characters of memory text. */
const textEstimator: ComplexityEstimator = ({ type, field, args, childComplexity }) => {
  const named = getNamedType(field.type);
  if (isLeafType(named)) return MEMORY_TEXTS[`${type.name}.${field.name}`] ?? 0;
  if (isConnection(named.name)) return ((args.first as number | undefined) ?? PAGE_SIZE_DEFAULT) * childComplexity;
  if (!isListType(getNullableType(field.type)) || field.name.startsWith('__')) return childComplexity;
  if (isConnection(type.name) && (field.name === 'nodes' || field.name === 'edges')) return childComplexity;
  return listBound(type.name, field.name, args) * childComplexity;
};

/** The most rows a list that is not a connection can hold: its bound, or fewer when its first argument asks for fewer. */
function listBound(typeName: string, fieldName: string, args: Record<string, unknown>): number {
  const bound = LIST_BOUNDS[`${typeName}.${fieldName}`] ?? 1;
  const first = args.first;
  return typeof first === 'number' && first >= 0 && first < bound ? first : bound;
}

/** The most characters of linked memory text the operation's answer could hold (see MAX_PLANNED_CHARS). */
export function plannedChars(schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown>): number {
  return getComplexity({ schema, query: document, variables, estimators: [textEstimator], maxQueryNodes: 20_000 });
}
