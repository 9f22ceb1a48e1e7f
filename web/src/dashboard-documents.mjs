/**
 * The dashboard's GraphQL documents, in one place: the page sends them
 * (web/src/task-data.ts), `npm run bench` times them (bench/workloads.mjs) and
 * the tests hold them to a fixed number of SQL statements and to the same
 * answers compiled or not (test/costs/fixed-statements-per-query.test.ts,
 * test/costs/compiled-queries-answer-the-same.test.ts). Plain JavaScript, so Vite,
 * plain node and Vitest all read the same file.
 */

export const REF = 'id number text deleted';
export const COMMENT = `id body createdAt refs { ${REF} } item { id }`;
export const BRIEF = `goal context steps pitfalls doneWhen extraInfo dependsOn { item { ${REF} } reason }`;
/** What a row needs to show an item's claim and whether it waits (web/src/claims.tsx): cheap per row; the blocker lists are read when the row is opened. */
export const CLAIM_FIELDS = 'claim { claimedAt expiresAt session { id name statusLine } } ready blocks { id }';
export const ITEM = `id number text state deleted note added related { id title kind domain } ${CLAIM_FIELDS}`;
/** The task without its items, comments or notes. */
export const META = `id title goal goalRefs { ${REF} } domain state status version updatedAt
  session { id name preset rules { noteRequiredFor planOnce oneActive minItems maxItems maxTextLength maxNoteLength } }
  progress { done total blocked failed }`;

/** Comments (the task's and its items', oldest first) come a page at a time: the first with the task, the rest on demand. */
export const COMMENT_PAGE = 200;
const COMMENT_PAGE_FIELDS = `totalCount pageInfo { hasNextPage endCursor } nodes { ${COMMENT} }`;
/** A further page of a task's comments. */
export const TASK_COMMENTS = `query($id: ID!, $first: Int!, $after: String) { task(id: $id) { comments(first: $first, after: $after, includeItems: true) { ${COMMENT_PAGE_FIELDS} } } }`;

/** What the page shows around the list: the task, its comments and notes, and how long its history is. */
const HEAD_FIELDS = `${META}
  comments(first: ${COMMENT_PAGE}, includeItems: true) { ${COMMENT_PAGE_FIELDS} }
  notes(first: 100) { totalCount nodes { id title body brief { ${BRIEF} } items { id number text } refs { ${REF} } updatedAt } }
  history(first: 1, newestFirst: true) { totalCount nodes { id } }`;
/** One page of the list. */
const ITEMS_FIELDS = `items(first: $first, after: $after, includeDeleted: $deleted) { totalCount pageInfo { hasNextPage endCursor } nodes { ${ITEM} } }`;

/** The head of a task, read when it opens and when it or its notes are edited. */
export const TASK_HEAD = `query($id: ID!) { task(id: $id) { ${HEAD_FIELDS}
} }`;
/** A page of its items: the first FIRST_PAGE when it opens, then PAGE at a time. */
export const TASK_ITEMS = `query($id: ID!, $deleted: Boolean!, $first: Int!, $after: String) { task(id: $id) {
  ${ITEMS_FIELDS} } }`;
/**
 * Opening a task, in one request: the head and the first page, which the page
 * sends side by side as TASK_HEAD and TASK_ITEMS; the bench and the tests send
 * this one so a read of theirs is one request.
 */
export const TASK_OPENED = `query($id: ID!, $deleted: Boolean!, $first: Int!, $after: String) { task(id: $id) { ${HEAD_FIELDS}
  ${ITEMS_FIELDS} } }`;

/**
 * The first page paints at once, and is small: a screen and a half of rows,
 * so a long task shows its first rows without waiting for hundreds to be read
 * and laid out. The rest come a page at a time, on demand (scrolling near the
 * end, "Show more", a link to an item further down).
 */
export const FIRST_PAGE = 30;
export const PAGE = 100;
