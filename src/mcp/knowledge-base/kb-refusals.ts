/**
 * Refusals in the knowledge-base tools' words (the reference's vocabulary:
 * task_add, task_item, task_claim, task_next, task_read, uids, snake_case
 * fields, states todo/doing/done/dropped), worded from each refusal's reason
 * and facts (domain/refusals.ts), never from another layer's message.
 */
import type { DomainError } from '../../domain/errors.js';
import { assertUnreachable, cycleText, oneOf, itemIdsText, labelName, type BriefField, type Refusal } from '../../domain/refusals.js';
import type { Remedy } from '../../domain/remedies.js';
import { kbState } from './kb-text.js';

/** What to send instead, in the knowledge-base tools' words (domain/remedies.ts has GraphQL's). */
const KB_REMEDIES: Record<Remedy, string> = {
  BRIEF_THE_DETAIL: "Keep it a short label, verb first, and put the detail in a brief on the item (task_note with items and the brief's fields).",
  COMMENT_TEXT: 'send some text.',
  LINK_BY_ID: 'Link a note or a task by the uid remember or task returned (search finds it).',
  ADD_THE_WORK_AGAIN: 'Add a new item with task_add if the work is back.',
  WAIT_FOR_A_LIVE_ITEM: 'Name a live item, or add the work again with task_add.',
  FILL_THE_BRIEF: 'Fill them in (depends_on may be "none", extra_info may be left out).',
  LEAVE_CLAIMED_WORK: 'Take other work (task_next), or wait for that claim to end; to change it anyway, call task_item again with force: true and the reason in comment (the override is recorded).',
  CLAIM_IT_AGAIN: 'Read the item (task_read) to see what was done; if work is left, claim it again (task_claim) before changing it, or call task_item with force: true and the reason in comment.',
};

/** A brief's fields as task_note names them. */
const KB_BRIEF_FIELDS: Record<BriefField, string> = { goal: 'goal', context: 'context', steps: 'steps', pitfalls: 'pitfalls', doneWhen: 'done_when' };

/** A field as these tools' arguments name it: GraphQL's camelCase input fields are snake_case here. */
const KB_FIELD_NAMES: Readonly<Record<string, string>> = { doneWhen: 'done_when', dependsOn: 'depends_on', extraInfo: 'extra_info' };

function kbField(field: string): string {
  return KB_FIELD_NAMES[field] ?? field;
}

/** A lease as these tools say it: "for 840 s (until …)", or "until …" when the seconds left are not known. */
function lease(expiresAt: string, seconds: number | null): string {
  return seconds === null ? `until ${expiresAt}` : `for ${seconds} s (until ${expiresAt})`;
}

/** What was wrong, in these tools' words. */
function kbFact(refusal: Refusal): string {
  switch (refusal.reason) {
    case 'CLAIM_TTL_OUT_OF_RANGE': {
      const { ttlSeconds, min, max, defaultSeconds } = refusal.facts;
      return `ttl_seconds is ${ttlSeconds}; a claim lasts ${min} to ${max} whole seconds (default ${defaultSeconds}). Send ttl_seconds in that range and renew the claim (task_claim, action "renew") while you work.`;
    }
    case 'CLAIMED_BY_OTHER': {
      const { itemId, holder, expiresAt, expiresInSeconds } = refusal.facts;
      return `Item ${itemId} is claimed by session ${holder} ${lease(expiresAt, expiresInSeconds)}. Take another item (task_next claims one), or wait for that claim to end.`;
    }
    case 'CLAIM_FENCED': {
      const { itemId, caller, holder, expiresAt, expiresInSeconds } = refusal.facts;
      return `Item ${itemId} is claimed by session ${holder} ${lease(expiresAt, expiresInSeconds)}; your session (${caller}) does not hold its claim, so nothing was recorded.`;
    }
    case 'CLAIM_TAKEN_OVER': {
      const { itemId, holder, expiresAt, expiresInSeconds } = refusal.facts;
      return `Your claim on item ${itemId} lapsed and the work was taken over: session ${holder} holds it ${lease(expiresAt, expiresInSeconds)}. Nothing was recorded.`;
    }
    case 'CLAIM_TAKEN_OVER_ENDED': {
      const { itemId, holder, expiresAt } = refusal.facts;
      return `Your claim on item ${itemId} lapsed and the work was taken over by session ${holder} (its claim ended at ${expiresAt}). Nothing was recorded.`;
    }
    case 'CLAIM_NEXT_TAKEN_OVER': {
      const { itemId, holder, expiresAt, expiresInSeconds } = refusal.facts;
      return `This call already claimed item ${itemId} for you, but that claim lapsed and session ${holder} holds the item ${lease(expiresAt, expiresInSeconds)}. Call task_next again to claim another item.`;
    }
    case 'NOT_CLAIMED':
      return `Your session holds no live claim on item ${refusal.facts.itemId} (it expired, was released, or was never taken). Claim it again with task_claim.`;
    case 'NOT_CLAIMED_HELD_BY_OTHER': {
      const { itemId, holder, expiresAt, expiresInSeconds } = refusal.facts;
      return `Your session holds no live claim on item ${itemId}: session ${holder} holds it ${lease(expiresAt, expiresInSeconds)}, so claiming it again would be refused. Take another item (task_next), or wait for that claim to end.`;
    }
    case 'NOT_CLAIMED_SETTLED':
      return `Your session holds no live claim on item ${refusal.facts.itemId}, and the item is already ${kbState(refusal.facts.state)}: there is nothing left to renew or claim. Take other work (task_next).`;
    case 'CLAIM_NEEDS_SESSION':
      return 'Claims belong to an agent session, and this call has none: send session_key so the server knows which agent you are.';
    case 'CLAIM_ON_PLAN_STEP':
      return `Item ${refusal.facts.itemId} is a step of a session's plan; claims are for items of tasks (task).`;
    case 'CLAIM_ON_SETTLED_ITEM':
      return `Item ${refusal.facts.itemId} is ${kbState(refusal.facts.state)}; only todo or doing items can be claimed. Set it back to todo with task_item first, or take another item (task_next).`;
    case 'CLAIMS_PER_SESSION':
      return `Your session already holds ${refusal.facts.limit} live claims, the most one session may hold. Finish the items you hold, or release (task_claim, action "release") those you are not working on.`;
    case 'CLAIMS_PER_TOKEN':
      return `The sessions of this token already hold ${refusal.facts.limit} live claims between them. Finish or release (task_claim, action "release") claims nobody is working on, or let them expire, before claiming more.`;
    case 'VERSION_CONFLICT':
      return `Task ${refusal.facts.taskId} changed since you read it (it is at version ${refusal.facts.currentVersion}). Read it again with task_read, then send your change again.`;
    case 'TASK_NOT_FOUND':
      return `no task has uid "${refusal.facts.taskId}". Use the uid task returned, or find it with search or must_read.`;
    case 'NOT_A_TASK':
      return `memory ${refusal.facts.memoryId} is a note, not a task: read it with get_memory, change it with edit_memory.`;
    case 'ITEM_NOT_FOUND':
      return `No item has id "${refusal.facts.itemId}". Item ids are the numbers shown as [[#id]]; task_read lists a task's items with their ids.`;
    case 'ITEM_NOT_IN_TASK':
      return `Item "${refusal.facts.itemId}" is not an item of task ${refusal.facts.taskId}, so nothing was changed. task_read lists its items with their ids.`;
    case 'MEMORY_NOT_FOUND':
      return `No memory has uid "${refusal.facts.memoryId}". Use a uid remember or task returned, or find it with search.`;
    case 'ITEM_DELETED':
      return `Item ${refusal.facts.itemId} ("${refusal.facts.text}") is deleted; it can still be cited as [[#${refusal.facts.itemId}]] but not changed.`;
    case 'DEPENDENCY_DELETED':
      return `depends_on names item ${refusal.facts.itemId}, which is deleted; a brief cannot start waiting for a deleted item.`;
    case 'RELATED_NOT_FOUND':
      return `related names no memory: ${refusal.facts.memoryIds.map((id) => `"${id}"`).join(', ')}.`;
    case 'BRIEF_FIELDS_EMPTY': {
      const fields = refusal.facts.fields.map((field) => KB_BRIEF_FIELDS[field]);
      return `A brief needs every one of goal, context, steps, pitfalls and done_when; ${fields.join(', ')} ${fields.length === 1 ? 'is' : 'are'} empty.`;
    }
    case 'COMMENT_EMPTY':
      return 'comment is empty once trimmed;';
    case 'LABEL_TOO_LONG':
      return `${labelName(refusal.facts, 'line')} is ${refusal.facts.length} characters; the limit is ${refusal.facts.limit}.`;
    case 'LABEL_EMPTY':
      return `${labelName(refusal.facts, 'line')} has no visible text; send a short label with some text in it.`;
    case 'LABEL_ONLY_MARKS':
      return `${labelName(refusal.facts, 'line')} holds only combining marks (accents with no letter to sit on); send a short label with some letters or digits in it.`;
    case 'LABEL_HAS_REF':
      return `${labelName(refusal.facts, 'line')} "${refusal.facts.label}" carries an [[#id]] token, and labels never may. Write the label in plain words and cite items in free text instead (the goal, a brief, a comment).`;
    case 'LABEL_TAKEN':
      return `"${refusal.facts.text}" is already a live item of this task. Change that item with task_item instead, or give the new one a label that tells them apart.`;
    case 'LABEL_SENT_TWICE':
      return `"${refusal.facts.text}" is sent twice; each item of a task needs its own label. Merge the two, or tell them apart.`;
    case 'ITEMS_PER_CALL':
      return `${refusal.facts.count} items in one call; the limit is ${refusal.facts.limit}. Send them in batches of at most ${refusal.facts.limit}.`;
    case 'ITEMS_PER_TASK': {
      const { live, count, limit } = refusal.facts;
      return `the task has ${live} live items and would have ${count}; the limit is ${limit}. Add at most ${Math.max(limit - live, 0)} more, or split the work into another task.`;
    }
    case 'FREE_TEXT_TOO_LONG': {
      const { field, length, limit } = refusal.facts;
      return `${kbField(field)} is ${length} characters; the limit is ${limit}. Shorten it, or split the detail into notes (task_note).`;
    }
    case 'BARE_REFERENCE': {
      const { field, word } = refusal.facts;
      return `${kbField(field)} mentions "${word}", which reads like a bare item reference. Cite an item by its id in a token instead, e.g. [[#57]] for the item whose id is 57 ` +
        `(ids stay fixed; the number a list shows is only its place). Replace "${word}" with [[#<item id>]], or reword it if it is not an item.`;
    }
    case 'UNKNOWN_REFERENCE': {
      const { field, unknownIds } = refusal.facts;
      return `${kbField(field)} cites ${unknownIds.map((id) => `[[#${id}]]`).join(', ')}, which ${unknownIds.length === 1 ? 'is not an item' : 'are not items'} of this task. ` +
        `Only items of this task may be cited, deleted ones included; ${itemIdsText(refusal.facts)}. Fix the id or remove the token.`;
    }
    case 'REFS_PER_TEXT': {
      const { field, count, limit } = refusal.facts;
      return `${kbField(field)} cites ${count} different items; one text cites at most ${limit}. Cite the items that matter here, and put the rest in a brief on them (task_note with items and depends_on).`;
    }
    case 'DEPENDENCY_UNKNOWN':
      return `depends_on names item "${refusal.facts.itemId}", which is not an item of this task. Name items of the same task by their ids.`;
    case 'DEPENDENCY_TWICE':
      return `depends_on names item ${refusal.facts.itemId} twice; name each item once, with one reason.`;
    case 'DEPENDENCY_ON_ITSELF':
      return `depends_on names item ${refusal.facts.itemId}, which this brief is on; an item cannot wait for itself. Name the items it waits for.`;
    case 'DEPENDENCIES_PER_BRIEF':
      return `depends_on names ${refusal.facts.count} items; one brief waits for at most ${refusal.facts.limit}. Name the items it waits for directly, or split the brief.`;
    case 'DEPENDENCY_CYCLE':
      return `This brief's depends_on would make a cycle: item ${cycleText(refusal.facts)}. Nothing could ever start; drop one of these dependencies.`;
    case 'AFTER_UNKNOWN':
      return `after names "${refusal.facts.waitsFor}", which is not an item of this task; an item waits only for items of its own task. Name them by id (task_read shows them).`;
    case 'AFTER_ITSELF':
      return `after names item ${refusal.facts.itemId} itself; an item cannot wait for itself. Name the items it waits for.`;
    case 'AFTER_DELETED':
      return `after names item ${refusal.facts.waitsFor}, which is deleted; an item cannot start waiting for a deleted item.`;
    case 'AFTER_TOO_MANY':
      return `after names ${refusal.facts.count} items; it names at most ${refusal.facts.limit}. Name only the items it waits for directly.`;
    case 'AFTER_CYCLE':
      return `after would make a cycle: item ${cycleText(refusal.facts)}. Nothing could ever start, so nothing was recorded; leave one of these items out.`;
    case 'BRIEF_MISSING':
      return "A note on items is a brief: send the brief's fields (goal, context, steps, pitfalls, done_when, depends_on) with items.";
    case 'NOTHING_TO_CHANGE':
      return `Nothing to change: send at least one of ${oneOf(refusal.facts.fields.map(kbField))}.`;
    default:
      return assertUnreachable(refusal);
  }
}

/**
 * A service's refusal in the knowledge-base tools' words, from its reason and
 * facts; a refusal outside the catalogue keeps the domain's own sentence.
 */
export function kbRefusal(error: DomainError): string {
  if (!error.refusal) return error.message;
  const fact = kbFact(error.refusal);
  return error.remedy ? `${fact} ${KB_REMEDIES[error.remedy]}` : fact;
}
