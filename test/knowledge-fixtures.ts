/**
 * Documents and checks shared by the issue-3 tests (task notes, comments,
 * references, notes and domains, search, query cost).
 */
export const REF = 'id number text deleted';

export const NOTE_FIELDS = `
  id title body bodyText createdAt updatedAt
  items { id number text }
  refs { ${REF} }
  brief {
    goal goalText context contextText steps stepsText pitfalls pitfallsText doneWhen doneWhenText extraInfo extraInfoText
    dependsOn { item { ${REF} } reason }
  }
`;

export const COMMENT_FIELDS = `id body bodyText createdAt item { ${REF} } refs { ${REF} }`;

export const ADD_TASK_NOTE = `mutation($input: AddTaskNoteInput!) { addTaskNote(input: $input) { ${NOTE_FIELDS} } }`;
export const EDIT_TASK_NOTE = `mutation($input: EditTaskNoteInput!) { editTaskNote(input: $input) { ${NOTE_FIELDS} } }`;
export const DELETE_TASK_NOTE = `mutation($id: ID!) { deleteTaskNote(id: $id) { id version notes(first: 200) { totalCount nodes { id } } } }`;
export const ADD_COMMENT = `mutation($input: AddCommentInput!) { addComment(input: $input) { ${COMMENT_FIELDS} } }`;
export const CREATE_NOTE = `mutation($input: CreateNoteInput!) { createNote(input: $input) { id kind title body domain status createdAt updatedAt } }`;
export const EDIT_NOTE = `mutation($input: EditNoteInput!) { editNote(input: $input) { id kind title body domain status createdAt updatedAt } }`;

export const MEMORY_FIELDS = `__typename id kind title domain status createdAt updatedAt ... on Note { body } ... on Task { goal state }`;

export const SEARCH = `query($query: String!, $domain: String, $kind: MemoryKind, $first: Int, $after: String) {
  search(query: $query, domain: $domain, kind: $kind, first: $first, after: $after) {
    totalCount pageInfo { hasNextPage endCursor } edges { cursor } nodes { ${MEMORY_FIELDS} }
  }
}`;

export const MEMORIES = `query($domain: String!, $kind: MemoryKind, $status: MemoryStatus, $first: Int, $after: String) {
  memories(domain: $domain, kind: $kind, status: $status, first: $first, after: $after) {
    totalCount pageInfo { hasNextPage endCursor } edges { cursor } nodes { ${MEMORY_FIELDS} }
  }
}`;

/** A task's notes and comments, one page each. */
export const TASK_NOTES = `query($id: ID!, $item: ID, $first: Int, $after: String) {
  task(id: $id) { id notes(item: $item, first: $first, after: $after) {
    totalCount pageInfo { hasNextPage endCursor } refs { ${REF} } nodes { ${NOTE_FIELDS} }
  } }
}`;
export const TASK_COMMENTS = `query($id: ID!, $item: ID, $includeItems: Boolean, $first: Int, $after: String) {
  task(id: $id) { id comments(item: $item, includeItems: $includeItems, first: $first, after: $after) {
    totalCount pageInfo { hasNextPage endCursor } edges { cursor } refs { ${REF} } nodes { ${COMMENT_FIELDS} }
  } }
}`;
export const ITEM_KNOWLEDGE = `query($id: ID!, $first: Int, $after: String) {
  item(id: $id) { id number text deleted
    notes(first: $first, after: $after) { totalCount pageInfo { hasNextPage endCursor } refs { ${REF} } nodes { id title } }
    comments(first: $first, after: $after) { totalCount pageInfo { hasNextPage endCursor } refs { ${REF} } nodes { id body bodyText } }
    dependsOn { item { ${REF} } reason }
    related { ${MEMORY_FIELDS} }
  }
}`;

export interface BriefInput {
  goal: string;
  context: string;
  steps: string;
  pitfalls: string;
  doneWhen: string;
  dependsOn: { item: string; reason?: string | null }[];
  extraInfo?: string | null;
}

/** A complete brief; override any field. */
export function brief(overrides: Partial<BriefInput> = {}): BriefInput {
  return {
    goal: 'Replays are idempotent and survive a restart.',
    context: 'The queue lives in the webhook worker.',
    steps: 'Persist each event id before acting on it.',
    pitfalls: 'A restart mid-replay must not double-book.',
    doneWhen: 'The restart test passes.',
    dependsOn: [],
    ...overrides,
  };
}

/** The cited item as an ItemRef reads. */
export function ref(item: { id: string; text: string }, number: number | null, deleted = false) {
  return { id: item.id, number, text: item.text, deleted };
}

export { databaseState, refusedAndNothingRecorded } from './nothing-recorded.js';

let unique = 0;
/** A domain no other test of the file uses. */
export function freshDomain(prefix = 'kb'): string {
  unique += 1;
  return `${prefix}${process.pid}x${unique}`;
}
