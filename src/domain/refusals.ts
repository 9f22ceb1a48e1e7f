import type { ErrorCode } from './errors.js';
import { GRAPHQL_REMEDIES, type Remedy } from './remedies.js';
import type { ItemState } from './states.js';

/**
 * The refusals an agent or the dashboard meets most, as data: one reason
 * each, with the facts it is about. Every surface words a reason from its own
 * table (GraphQL's words are here; each MCP tool set keeps its own), so no
 * layer reads another layer's message text. A refusal not listed here still
 * carries its facts and its code as its reason (errors.ts).
 */
export interface RefusalFacts {
  /** A claim's ttlSeconds outside min..max. */
  CLAIM_TTL_OUT_OF_RANGE: { ttlSeconds: number; min: number; max: number; defaultSeconds: number; limit: number; count: number };
  /** claimItem on an item another session's live claim holds. */
  CLAIMED_BY_OTHER: { itemId: string; holder: string; expiresAt: string; expiresInSeconds: number | null };
  /** A state or text change by a session that does not hold the item's live claim. */
  CLAIM_FENCED: { itemId: string; caller: string; holder: string; expiresAt: string; expiresInSeconds: number; takenOver: false };
  /** The caller's claim lapsed and another session holds the item now. */
  CLAIM_TAKEN_OVER: { itemId: string; caller: string; holder: string; expiresAt: string; expiresInSeconds: number; takenOver: true };
  /** The caller's claim lapsed, another session took the work over, and that claim has ended too. */
  CLAIM_TAKEN_OVER_ENDED: { itemId: string; caller: string; holder: string; expiresAt: string; takenOver: true };
  /** claimNext retried with its idempotencyKey after the claim it took lapsed and another session took the item. */
  CLAIM_NEXT_TAKEN_OVER: { itemId: string; caller: string; holder: string; expiresAt: string; expiresInSeconds: number; takenOver: true };
  /** renewClaim by a session that holds no live claim on the item. */
  NOT_CLAIMED: { itemId: string; sessionId: string };
  /** renewClaim by a session whose claim lapsed while another session's live claim holds the item now. */
  NOT_CLAIMED_HELD_BY_OTHER: { itemId: string; sessionId: string; holder: string; expiresAt: string; expiresInSeconds: number };
  /** renewClaim on an item already done or dropped: nothing is left to renew. */
  NOT_CLAIMED_SETTLED: { itemId: string; sessionId: string; state: ItemState };
  /** A claim call without a session. */
  CLAIM_NEEDS_SESSION: { operation: string };
  /** A claim on a step of a session's plan. */
  CLAIM_ON_PLAN_STEP: { itemId: string };
  /** A claim on an item that is settled or stuck. */
  CLAIM_ON_SETTLED_ITEM: { itemId: string; state: ItemState };
  /** A session already holds the most live claims one session may. */
  CLAIMS_PER_SESSION: { sessionId: string; limit: number };
  /** The sessions of one bearer token hold the most live claims one token may. */
  CLAIMS_PER_TOKEN: { limit: number };
  /** expectedVersion is not the task's current version. */
  VERSION_CONFLICT: { taskId: string; currentVersion: number; expectedVersion: number };
  /** An id names no task. */
  TASK_NOT_FOUND: { taskId: string };
  /** An id names no item. */
  ITEM_NOT_FOUND: { itemId: string };
  /** The item exists, but not in the task named. */
  ITEM_NOT_IN_TASK: { taskId: string; itemId: string };
  /** An id names no memory (note or task). */
  MEMORY_NOT_FOUND: { memoryId: string };
  /** A change of a task's list names a memory that is a note. */
  NOT_A_TASK: { memoryId: string; kind: 'NOTE' };
  /** A change names a deleted item. */
  ITEM_DELETED: { itemId: string; text: string };
  /** A brief starts waiting for a deleted item. */
  DEPENDENCY_DELETED: { itemId: string };
  /** related names memories that do not exist. */
  RELATED_NOT_FOUND: { memoryIds: string[] };
  /** A brief with required fields left empty (the fields by their GraphQL names). */
  BRIEF_FIELDS_EMPTY: { fields: BriefField[] };
  /** A comment that is empty once trimmed. */
  COMMENT_EMPTY: Record<string, never>;
  /** A label over its length limit. `item`/`of` place an item label among those sent in one call. */
  LABEL_TOO_LONG: LabelPlace & { length: number; limit: number };
  /** A label empty once trimmed (or holding only invisible characters). */
  LABEL_EMPTY: LabelPlace & { invisible: boolean };
  /** A label holding only combining marks. */
  LABEL_ONLY_MARKS: LabelPlace;
  /** A label carrying an [[#id]] token. */
  LABEL_HAS_REF: LabelPlace & { label: string };
  /** A new label that reads the same as a live item of the task. */
  LABEL_TAKEN: { text: string };
  /** The same label sent twice in one call. */
  LABEL_SENT_TWICE: { text: string };
  /** More items in one call than a call may carry. */
  ITEMS_PER_CALL: { count: number; limit: number };
  /** The task would hold more live items than a task may. */
  ITEMS_PER_TASK: { live: number; count: number; limit: number };
  /** Free text over its length limit. */
  FREE_TEXT_TOO_LONG: { field: string; length: number; limit: number };
  /** Free text citing an item as a bare word ("i3"). */
  BARE_REFERENCE: { field: string; word: string };
  /** Free text citing ids that are not items of the task: `itemIds` are the first of the task's ids, `itemCount` how many it has. */
  UNKNOWN_REFERENCE: { field: string; unknownIds: string[]; itemIds: string[]; itemCount: number };
  /** Free text citing more items than one text may. */
  REFS_PER_TEXT: { field: string; count: number; limit: number };
  /** A brief's dependsOn names an id that is not an item of the task. */
  DEPENDENCY_UNKNOWN: { itemId: string };
  /** A brief's dependsOn names one item twice. */
  DEPENDENCY_TWICE: { itemId: string };
  /** A brief's dependsOn names an item the brief is on. */
  DEPENDENCY_ON_ITSELF: { itemId: string };
  /** A brief's dependsOn names more items than a brief may wait for. */
  DEPENDENCIES_PER_BRIEF: { count: number; limit: number };
  /** A brief's dependsOn would close a cycle: each item waits for the next, and the last for the first. */
  DEPENDENCY_CYCLE: { itemIds: string[]; labels: string[] };
  /** An item's own `after` names an id that is not an item of its task. */
  AFTER_UNKNOWN: { itemId: string; waitsFor: string };
  /** An item's own `after` names the item itself. */
  AFTER_ITSELF: { itemId: string };
  /** An item's own `after` starts waiting for a deleted item. */
  AFTER_DELETED: { itemId: string; waitsFor: string };
  /** An item's own `after` names more items than one call may. */
  AFTER_TOO_MANY: { itemId: string; count: number; limit: number };
  /** An item's own `after` would close a cycle: each item waits for the next, and the last for the first. */
  AFTER_CYCLE: { itemIds: string[]; labels: string[] };
  /** A note on items sent without its brief. */
  BRIEF_MISSING: Record<string, never>;
  /** An edit that names nothing to change: `fields` are those it takes. */
  NOTHING_TO_CHANGE: { operation: string; fields: string[] };
}

/** The brief's required fields, by their GraphQL names (each surface names them its own way). */
export type BriefField = 'goal' | 'context' | 'steps' | 'pitfalls' | 'doneWhen';

/** Which label a label refusal is about: a field ("title", "text", "name"), or item `item` of the `of` labels sent in one call. */
export interface LabelPlace { field: string; item?: number; of?: number }

export type RefusalReason = keyof RefusalFacts;

/** One refusal as data: its reason and its facts, told apart by reason. */
export type Refusal = { [R in RefusalReason]: { reason: R; facts: RefusalFacts[R] } }[RefusalReason];

/** The code each reason is refused with (the code clients branch on). */
export const REFUSAL_CODES: { [R in RefusalReason]: ErrorCode } = {
  CLAIM_TTL_OUT_OF_RANGE: 'BAD_USER_INPUT',
  CLAIMED_BY_OTHER: 'CLAIMED',
  CLAIM_FENCED: 'CLAIMED',
  CLAIM_TAKEN_OVER: 'CLAIMED',
  CLAIM_TAKEN_OVER_ENDED: 'CLAIMED',
  CLAIM_NEXT_TAKEN_OVER: 'CLAIMED',
  NOT_CLAIMED: 'NOT_CLAIMED',
  NOT_CLAIMED_HELD_BY_OTHER: 'NOT_CLAIMED',
  NOT_CLAIMED_SETTLED: 'NOT_CLAIMED',
  CLAIM_NEEDS_SESSION: 'NO_SESSION',
  CLAIM_ON_PLAN_STEP: 'BAD_USER_INPUT',
  CLAIM_ON_SETTLED_ITEM: 'BAD_USER_INPUT',
  CLAIMS_PER_SESSION: 'TOO_LARGE',
  CLAIMS_PER_TOKEN: 'TOO_LARGE',
  VERSION_CONFLICT: 'VERSION_CONFLICT',
  TASK_NOT_FOUND: 'NOT_FOUND',
  ITEM_NOT_FOUND: 'NOT_FOUND',
  ITEM_NOT_IN_TASK: 'NOT_FOUND',
  MEMORY_NOT_FOUND: 'NOT_FOUND',
  NOT_A_TASK: 'BAD_USER_INPUT',
  ITEM_DELETED: 'DELETED_ITEM',
  DEPENDENCY_DELETED: 'DELETED_ITEM',
  RELATED_NOT_FOUND: 'NOT_FOUND',
  BRIEF_FIELDS_EMPTY: 'BRIEF_INCOMPLETE',
  COMMENT_EMPTY: 'EMPTY_TEXT',
  LABEL_TOO_LONG: 'TEXT_TOO_LONG',
  LABEL_EMPTY: 'EMPTY_TEXT',
  LABEL_ONLY_MARKS: 'EMPTY_TEXT',
  LABEL_HAS_REF: 'REF_IN_LABEL',
  LABEL_TAKEN: 'DUPLICATE_TEXT',
  LABEL_SENT_TWICE: 'DUPLICATE_TEXT',
  ITEMS_PER_CALL: 'TOO_LARGE',
  ITEMS_PER_TASK: 'TOO_LARGE',
  FREE_TEXT_TOO_LONG: 'TOO_LARGE',
  BARE_REFERENCE: 'BARE_ITEM_REFERENCE',
  UNKNOWN_REFERENCE: 'UNKNOWN_REFERENCE',
  REFS_PER_TEXT: 'TOO_LARGE',
  DEPENDENCY_UNKNOWN: 'UNKNOWN_REFERENCE',
  DEPENDENCY_TWICE: 'BAD_USER_INPUT',
  DEPENDENCY_ON_ITSELF: 'BAD_USER_INPUT',
  DEPENDENCIES_PER_BRIEF: 'TOO_LARGE',
  DEPENDENCY_CYCLE: 'BAD_USER_INPUT',
  AFTER_UNKNOWN: 'UNKNOWN_REFERENCE',
  AFTER_ITSELF: 'BAD_USER_INPUT',
  AFTER_DELETED: 'DELETED_ITEM',
  AFTER_TOO_MANY: 'TOO_LARGE',
  AFTER_CYCLE: 'BAD_USER_INPUT',
  BRIEF_MISSING: 'BRIEF_INCOMPLETE',
  NOTHING_TO_CHANGE: 'BAD_USER_INPUT',
};

/** What to send instead, where that names an operation: each surface words it from its own remedies table. */
export const REFUSAL_REMEDIES: Partial<Record<RefusalReason, Remedy>> = {
  CLAIM_FENCED: 'LEAVE_CLAIMED_WORK',
  CLAIM_TAKEN_OVER: 'LEAVE_CLAIMED_WORK',
  CLAIM_TAKEN_OVER_ENDED: 'CLAIM_IT_AGAIN',
  ITEM_DELETED: 'ADD_THE_WORK_AGAIN',
  DEPENDENCY_DELETED: 'WAIT_FOR_A_LIVE_ITEM',
  AFTER_DELETED: 'WAIT_FOR_A_LIVE_ITEM',
  RELATED_NOT_FOUND: 'LINK_BY_ID',
  BRIEF_FIELDS_EMPTY: 'FILL_THE_BRIEF',
  COMMENT_EMPTY: 'COMMENT_TEXT',
  LABEL_TOO_LONG: 'BRIEF_THE_DETAIL',
};

export function assertUnreachable(value: never): never {
  throw new Error(`unhandled refusal ${JSON.stringify(value)}`);
}

/** "for 840 s (until …)" when the seconds left are known, else "until …". */
export function leaseWords(expiresAt: string, expiresInSeconds: number | null): string {
  return expiresInSeconds === null ? `until ${expiresAt}` : `for ${expiresInSeconds} s (until ${expiresAt})`;
}

/** The label a label refusal is about, as the messages name it: "title", or "item 2 of 5 sent". */
export function labelName(place: LabelPlace, itemWord = 'item'): string {
  return place.item === undefined ? place.field : `${itemWord} ${place.item} of ${place.of} sent`;
}

/** "a, b and c" for 1..n words. */
function listed(words: readonly string[]): string {
  return words.join(', ');
}

/** What was wrong, in GraphQL's words; the remedy, where it names an operation, comes from GRAPHQL_REMEDIES. */
function graphqlFact(refusal: Refusal): string {
  switch (refusal.reason) {
    case 'CLAIM_TTL_OUT_OF_RANGE': {
      const { ttlSeconds, min, max, defaultSeconds } = refusal.facts;
      return `ttlSeconds is ${ttlSeconds}; a claim lasts ${min} to ${max} whole seconds (at most an hour; default ${defaultSeconds}). Send a ttl in that range and renew the claim while you work.`;
    }
    case 'CLAIMED_BY_OTHER': {
      const { itemId, holder, expiresAt, expiresInSeconds } = refusal.facts;
      return `Item ${itemId} is claimed by session ${holder} ${leaseWords(expiresAt, expiresInSeconds)}. Take another item (ready lists the unclaimed ones, claimNext claims one), or wait for that claim to end.`;
    }
    case 'CLAIM_FENCED': {
      const { itemId, caller, holder, expiresAt, expiresInSeconds } = refusal.facts;
      return `Item ${itemId} is claimed by session ${holder} ${leaseWords(expiresAt, expiresInSeconds)}; session ${caller} does not hold its claim, so its change was not recorded.`;
    }
    case 'CLAIM_TAKEN_OVER': {
      const { itemId, caller, holder, expiresAt, expiresInSeconds } = refusal.facts;
      return `Session ${caller}'s claim on item ${itemId} lapsed and the work was taken over: session ${holder} holds it ${leaseWords(expiresAt, expiresInSeconds)}. The change was not recorded.`;
    }
    case 'CLAIM_TAKEN_OVER_ENDED': {
      const { itemId, caller, holder, expiresAt } = refusal.facts;
      return `Session ${caller}'s claim on item ${itemId} lapsed and the work was taken over by session ${holder} (its claim ended at ${expiresAt}). The change was not recorded.`;
    }
    case 'CLAIM_NEXT_TAKEN_OVER': {
      const { itemId, caller, holder, expiresAt, expiresInSeconds } = refusal.facts;
      return `This idempotencyKey already claimed item ${itemId} for session ${caller}, but that claim lapsed and session ${holder} holds the item ${leaseWords(expiresAt, expiresInSeconds)}. Send claimNext with a new idempotencyKey to claim another item.`;
    }
    case 'NOT_CLAIMED':
      return `Session ${refusal.facts.sessionId} holds no live claim on item ${refusal.facts.itemId} (it expired, was released, or was never taken). Claim it again with claimItem.`;
    case 'NOT_CLAIMED_HELD_BY_OTHER': {
      const { itemId, sessionId, holder, expiresAt, expiresInSeconds } = refusal.facts;
      return `Session ${sessionId} holds no live claim on item ${itemId}: session ${holder} holds it ${leaseWords(expiresAt, expiresInSeconds)}, so claiming it again would be refused. Take another item (claimNext claims one), or wait for that claim to end.`;
    }
    case 'NOT_CLAIMED_SETTLED': {
      const { itemId, sessionId, state } = refusal.facts;
      return `Session ${sessionId} holds no live claim on item ${itemId}, and the item is already ${state === 'DONE' ? 'done' : 'dropped'}: there is nothing left to renew or claim. Take other work (claimNext claims the next ready item).`;
    }
    case 'CLAIM_NEEDS_SESSION':
      return `${refusal.facts.operation} needs the calling agent session: send x-session-id with the id startSession returned. A person without a session may only release claims (releaseClaim).`;
    case 'CLAIM_ON_PLAN_STEP':
      return `Item ${refusal.facts.itemId} is a step of a session's plan; claims are for items of knowledge-base tasks.`;
    case 'CLAIM_ON_SETTLED_ITEM':
      return `Item ${refusal.facts.itemId} is ${refusal.facts.state}; only PENDING or IN_PROGRESS items can be claimed. Reopen it with updateItem first, or take another item.`;
    case 'CLAIMS_PER_SESSION':
      return `Session ${refusal.facts.sessionId} already holds ${refusal.facts.limit} live claims, the most one session may hold. Finish or release (releaseClaim) the claims you are not working on first.`;
    case 'CLAIMS_PER_TOKEN':
      return `The sessions of this bearer token already hold ${refusal.facts.limit} live claims between them, the most one token may hold. Finish or release (releaseClaim) claims nobody is working on, or let them expire, before claiming more.`;
    case 'VERSION_CONFLICT': {
      const { taskId, currentVersion, expectedVersion } = refusal.facts;
      return `Task ${taskId} is at version ${currentVersion}, not ${expectedVersion}: it changed since you read it. Read the task again, then resend your change with expectedVersion: ${currentVersion}.`;
    }
    case 'TASK_NOT_FOUND':
      return `No task has id "${refusal.facts.taskId}". Use the id that createTask returned, or find the task with search or memories.`;
    case 'ITEM_NOT_FOUND':
      return `No item has id "${refusal.facts.itemId}". Item ids are the numbers shown as [[#id]]; read the task's items to find them.`;
    case 'ITEM_NOT_IN_TASK': {
      const { taskId, itemId } = refusal.facts;
      return `Task ${taskId} has no item with id "${itemId}". Read task ${taskId}'s items for their ids, or leave taskId out.`;
    }
    case 'MEMORY_NOT_FOUND':
      return `No memory has id "${refusal.facts.memoryId}". Use an id that createNote or createTask returned, or find it with search.`;
    case 'NOT_A_TASK':
      return `Memory ${refusal.facts.memoryId} is a note, not a task; change it with editNote. Tasks come from createTask.`;
    case 'ITEM_DELETED': {
      const { itemId, text } = refusal.facts;
      return `Item ${itemId} ("${text}") is deleted; it can still be cited as [[#${itemId}]] but not changed.`;
    }
    case 'DEPENDENCY_DELETED':
      return `dependsOn names item ${refusal.facts.itemId}, which is deleted; a brief cannot start waiting for a deleted item.`;
    case 'RELATED_NOT_FOUND':
      return `related names no memory: ${refusal.facts.memoryIds.map((id) => `"${id}"`).join(', ')}.`;
    case 'BRIEF_FIELDS_EMPTY': {
      const { fields } = refusal.facts;
      return `A brief needs every one of goal, context, steps, pitfalls and doneWhen; ${listed(fields)} ${fields.length === 1 ? 'is' : 'are'} empty.`;
    }
    case 'COMMENT_EMPTY':
      return 'comment is empty once trimmed;';
    case 'LABEL_TOO_LONG':
      return `${labelName(refusal.facts)} is ${refusal.facts.length} characters; the limit is ${refusal.facts.limit}.`;
    case 'LABEL_EMPTY':
      return refusal.facts.invisible
        ? `${labelName(refusal.facts)} holds only invisible characters (zero-width or format characters, whitespace); send a short label with some visible text in it.`
        : `${labelName(refusal.facts)} is empty once trimmed; send a short label with some text in it.`;
    case 'LABEL_ONLY_MARKS':
      return `${labelName(refusal.facts)} holds only combining marks (accents with no letter to sit on), which show as nothing a reader can tell apart; send a short label with some letters or digits in it.`;
    case 'LABEL_HAS_REF':
      return `${labelName(refusal.facts)} "${refusal.facts.label}" carries an [[#id]] token, and labels never may. Write the label in plain words and cite items in free text instead (the goal, a brief, a comment).`;
    case 'LABEL_TAKEN':
      return `"${refusal.facts.text}" is already a live item of this task. Update that item instead, or give the new one a label that tells them apart.`;
    case 'LABEL_SENT_TWICE':
      return `"${refusal.facts.text}" is sent twice; each item of a task needs its own label. Merge the two, or tell them apart.`;
    case 'ITEMS_PER_CALL': {
      const { count, limit } = refusal.facts;
      return `${count} items in one call; the limit is ${limit}. Send them in batches of at most ${limit}.`;
    }
    case 'ITEMS_PER_TASK': {
      const { live, count, limit } = refusal.facts;
      return `the task has ${live} live items and would have ${count}; the limit is ${limit}. Send at most ${Math.max(limit - live, 0)} more, or split the work into another task.`;
    }
    case 'FREE_TEXT_TOO_LONG': {
      const { field, length, limit } = refusal.facts;
      return `${field} is ${length} characters; the limit is ${limit}. Shorten it, or split the detail into task notes.`;
    }
    case 'BARE_REFERENCE': {
      const { field, word } = refusal.facts;
      return `${field} mentions "${word}", which reads like a bare item reference. Cite an item by its id in a token instead, e.g. [[#57]] for the item whose id is 57 ` +
        `(ids stay fixed; the number a list shows is only its place). Replace "${word}" with [[#<item id>]], or reword it if it is not an item.`;
    }
    case 'UNKNOWN_REFERENCE': {
      const { field, unknownIds } = refusal.facts;
      return `${field} cites ${unknownIds.map((id) => `[[#${id}]]`).join(', ')}, which ${unknownIds.length === 1 ? 'is not an item' : 'are not items'} of this task. ` +
        `Only items of this task may be cited, deleted ones included; ${itemIdsText(refusal.facts)}. Fix the id or remove the token.`;
    }
    case 'REFS_PER_TEXT': {
      const { field, count, limit } = refusal.facts;
      return `${field} cites ${count} different items; one text cites at most ${limit}. Cite the items that matter here, and put the rest in a brief on them (items, dependsOn).`;
    }
    case 'DEPENDENCY_UNKNOWN':
      return `dependsOn names item "${refusal.facts.itemId}", which is not an item of this task. Name items of the same task by their ids.`;
    case 'DEPENDENCY_TWICE':
      return `dependsOn names item ${refusal.facts.itemId} twice; name each item once, with one reason.`;
    case 'DEPENDENCY_ON_ITSELF':
      return `dependsOn names item ${refusal.facts.itemId}, which this brief is on; an item cannot wait for itself. Name the items it waits for.`;
    case 'DEPENDENCIES_PER_BRIEF':
      return `dependsOn names ${refusal.facts.count} items; one brief waits for at most ${refusal.facts.limit}. Name the items it waits for directly, or split the brief.`;
    case 'DEPENDENCY_CYCLE':
      return `This brief's dependsOn would make a cycle: item ${cycleText(refusal.facts)}. Nothing could ever start; drop one of these dependencies.`;
    case 'AFTER_UNKNOWN':
      return `after names "${refusal.facts.waitsFor}", which is not an item of item ${refusal.facts.itemId}'s task. An item waits only for items of its own task; name them by id.`;
    case 'AFTER_ITSELF':
      return `after names item ${refusal.facts.itemId} itself; an item cannot wait for itself. Name the items it waits for.`;
    case 'AFTER_DELETED':
      return `after names item ${refusal.facts.waitsFor}, which is deleted; item ${refusal.facts.itemId} cannot start waiting for a deleted item.`;
    case 'AFTER_TOO_MANY':
      return `after names ${refusal.facts.count} items; an item's after names at most ${refusal.facts.limit}. Name the items it waits for directly (one that waits for the rest is enough), or state the waits in a brief.`;
    case 'AFTER_CYCLE':
      return `This after would make a cycle: item ${cycleText(refusal.facts)}. Nothing could ever start; leave one of these items out.`;
    case 'BRIEF_MISSING':
      return 'A note on items is a brief: send brief (goal, context, steps, pitfalls, doneWhen, dependsOn) with items.';
    case 'NOTHING_TO_CHANGE':
      return `${refusal.facts.operation} needs at least one of ${oneOf(refusal.facts.fields)}.`;
    default:
      return assertUnreachable(refusal);
  }
}

/** "a, b or c". */
export function oneOf(words: readonly string[]): string {
  return words.length <= 1 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
}

/** The ids a text may cite, as an UNKNOWN_REFERENCE refusal offers them: "its item ids are 5, 6" (the first ten, and how many more). */
export function itemIdsText({ itemIds, itemCount }: { itemIds: readonly string[]; itemCount: number }): string {
  if (itemCount === 0) return 'this task has no items yet, so there is nothing to cite';
  return itemCount > itemIds.length
    ? `its item ids include ${itemIds.join(', ')} (and ${itemCount - itemIds.length} more)`
    : `its item ids are ${itemIds.join(', ')}`;
}

/** A dependency cycle as the refusal names it: `5 "Parse" waits for 6 "Load" waits for 5 "Parse"`. */
export function cycleText({ itemIds, labels }: { itemIds: readonly string[]; labels: readonly string[] }): string {
  return itemIds.map((id, index) => `${id} "${labels[index]}"`).join(' waits for ');
}

/** The refusal in GraphQL's words: the message a DomainError carries, and the one GraphQL clients see. */
export function graphqlMessage(refusal: Refusal): string {
  const remedy = REFUSAL_REMEDIES[refusal.reason];
  return remedy ? `${graphqlFact(refusal)} ${GRAPHQL_REMEDIES[remedy]}` : graphqlFact(refusal);
}
