/**
 * The workloads `npm run bench` drives, in the order it runs them. Each
 * builds its next request body (GraphQL, or the raw handler's JSON) from
 * the database's known layout, so requests spread over the whole data.
 */
import { layout } from './load.mjs';
import { EVEN_HITS, EVEN_WORD, SCOPES, SEARCH_WORD } from './scales.mjs';
import { FIRST_PAGE, TASK_OPENED } from '../web/src/dashboard-documents.mjs';

/**
 * The dashboard's read of one task as the page opens it: its head (comments,
 * notes, history count) and the first page of its items, in one request
 * (web/src/dashboard-documents.mjs, which the page and the tests use too).
 */
const DASHBOARD = TASK_OPENED;
/** The variables of a dashboard read: the first page of live items. */
const dashboardVariables = (id) => ({ id, deleted: false, first: FIRST_PAGE, after: null });

const UPDATE_ITEM = `mutation($input: UpdateItemInput!) {
  updateItem(input: $input) { id state note task { id version state progress { done total } } }
}`;
const WRITE_TODOS = `mutation($todos: [TodoInput!]!) { writeTodos(todos: $todos) { message } }`;
const MUST_READ = `query($domain: String!) { mustRead(domain: $domain) { id title state status updatedAt progress { done total } } }`;
const MEMORIES = `query($domain: String!, $after: String) {
  memories(domain: $domain, first: 20, after: $after) {
    totalCount pageInfo { hasNextPage endCursor }
    nodes { __typename id title status updatedAt ... on Task { state progress { done total } } }
  }
}`;
const SEARCH = `query($query: String!) { search(query: $query, first: 20) { totalCount nodes { __typename id title status } } }`;
const DOMAINS = `{ domains { path openTasks tasks notes } }`;
const END_TURN = `mutation { endTurn { text domains } }`;

const STATES = ['PENDING', 'IN_PROGRESS', 'DONE', 'BLOCKED'];
const pick = (list) => list[Math.floor(Math.random() * list.length)];
const randomInt = (n) => Math.floor(Math.random() * n);

/** The cursor of the last memory on page `page` of the memories workload's scope (ids newest first). */
function memoriesCursor(scaleName, page) {
  const { scale, taskId, noteId } = layout(scaleName);
  const perOrg = scale.teams * scale.areas;
  const leaves = scale.orgs * perOrg;
  const ids = [];
  for (let t = 0; t < scale.tasks; t += 1) if (t % leaves < perOrg) ids.push(taskId(t));
  for (let n = 0; n < scale.notes; n += 1) if (n % leaves < perOrg) ids.push(noteId(n));
  ids.sort((a, b) => b - a);
  const pages = Math.min(page, Math.floor(ids.length / 20) - 1);
  return { page: pages + 1, cursor: Buffer.from(JSON.stringify([ids[pages * 20 - 1]])).toString('base64url') };
}

/**
 * Every workload: `kind` says where it goes (the server's /graphql or the raw
 * handler), `next()` gives one request's body (and session header), `raw`
 * names the raw reference it is compared with. A `read` also gets its payload
 * floor (a bare node:http answering its exact bytes); `replay` gives it a raw
 * handler that runs the SQL the server ran for it (bench/raw-server.mjs);
 * `fixedRate` measures its latency again at a fixed offered rate, half its
 * raw handler's capacity (half its own where it has none); `kept` marks a
 * read the server keeps until anything commits, measured again with the
 * server keeping nothing (its cost right after a commit). `noneDue` marks
 * every session reminded just now before each of its runs (sample, closed
 * loop, fixed rate), so no turn has a reminder due: the common case, since
 * a session is reminded at most once per 30 minutes and an agent ends many
 * turns in that time. A turn that reminds reads the session's open tasks and
 * their open items and claims the reminder, about three times the CPU (two
 * reads of about 0.4 ms each at --scale large). Left to chance, a run's mix
 * of the two depended on whom earlier runs had reminded and when: a closed
 * loop over mostly reminded sessions (3,043 req/s) set a fixed rate that
 * sessions falling due again could not be answered at (p99 283 ms). With
 * every session due at once, 1,100 req/s offered: p99 290-491 ms over the
 * first 9 s at 87 % CPU, 3-4 ms in the next 9 s once most were reminded.
 */
export function workloads(scaleName, dashboardTaskId) {
  const { scale, itemId, taskId, sessionId } = layout(scaleName);
  const deep = memoriesCursor(scaleName, 1000);
  const randomItem = () => String(itemId(randomInt(scale.tasks), randomInt(scale.itemsPerTask)));
  const gql = (query, variables = () => ({}), session) => () => ({ body: { query, variables: variables() }, session: session?.() });
  const randomSession = () => sessionId(randomInt(scale.plans));
  // writeTodos and its raw handler each turn the plans of their own half of the sessions: a session's first turn
  // rewrites its seeded plan (steps dropped and added, the session named), the later ones only move states, so
  // neither side's later turns ride on the other's first ones. The raw handler, faster, gets further past its
  // first turns, so the ratio leans against the server, not for it.
  const sessionOfHalf = (half) => () => sessionId(2 * randomInt(Math.floor(scale.plans / 2)) + half);
  // One turn of an agent's plan: the same ten steps, the first `active` done, the next in progress.
  const turnTodos = () => {
    const active = randomInt(10);
    return { todos: Array.from({ length: 10 }, (_, i) => ({ content: `Step ${i + 1} of the turn`, status: i < active ? 'DONE' : i === active ? 'IN_PROGRESS' : 'PENDING' })) };
  };
  return [
    { name: 'floor { __typename }', kind: 'server', read: true, next: gql('{ __typename }') },
    { name: 'raw dashboard read', kind: 'raw', path: '/dashboard', next: () => ({ body: { id: dashboardTaskId } }) },
    { name: 'raw updateItem', kind: 'raw', path: '/update-item', next: () => ({ body: { id: randomItem(), state: pick(STATES) } }) },
    // updateItem's floor on this machine: a strict part of its writes with the driver alone (raw-server.mjs /write-floor).
    { name: 'write floor (an item and its history row)', kind: 'raw', profiled: true, path: '/write-floor', next: () => {
      const task = randomInt(scale.tasks);
      return { body: { id: String(itemId(task, randomInt(scale.itemsPerTask))), taskId: String(taskId(task)), state: pick(STATES) } };
    } },
    { name: 'dashboard read', kind: 'server', raw: 'raw dashboard read', read: true, kept: true, fixedRate: true, next: gql(DASHBOARD, () => dashboardVariables(dashboardTaskId)) },
    { name: 'updateItem', kind: 'server', raw: 'raw updateItem', next: gql(UPDATE_ITEM, () => ({ input: { id: randomItem(), state: pick(STATES) } })) },
    { name: 'raw writeTodos (10 steps)', kind: 'raw', path: '/write-todos', next: () => ({ body: turnTodos(), session: sessionOfHalf(0)() }) },
    { name: 'writeTodos (10 steps)', kind: 'server', raw: 'raw writeTodos (10 steps)', next: gql(WRITE_TODOS, turnTodos, sessionOfHalf(1)) },
    { name: `mustRead (${SCOPES.mustRead})`, kind: 'server', read: true, replay: true, kept: true, fixedRate: true, next: gql(MUST_READ, () => ({ domain: SCOPES.mustRead })) },
    { name: `memories page 1 (${SCOPES.memories})`, kind: 'server', read: true, replay: true, kept: true, next: gql(MEMORIES, () => ({ domain: SCOPES.memories })) },
    { name: `memories page ${deep.page.toLocaleString('en')}`, kind: 'server', read: true, kept: true, next: gql(MEMORIES, () => ({ domain: SCOPES.memories, after: deep.cursor })) },
    { name: `search "${SEARCH_WORD}" (0.1% of tasks)`, kind: 'server', read: true, replay: true, kept: true, fixedRate: true, next: gql(SEARCH, () => ({ query: SEARCH_WORD })) },
    { name: `search "${EVEN_WORD}" (${EVEN_HITS} tasks at every scale)`, kind: 'server', read: true, kept: true, next: gql(SEARCH, () => ({ query: EVEN_WORD })) },
    { name: 'domains()', kind: 'server', read: true, replay: true, kept: true, fixedRate: true, next: gql(DOMAINS) },
    { name: 'endTurn', kind: 'server', fixedRate: true, noneDue: true, next: gql(END_TURN, () => ({}), randomSession) },
  ];
}

/** The dashboard's task, made through the API: 50 items, 20 notes with briefs, 20 comments, refs and links throughout. */
export async function createDashboardTask(call) {
  const labels = Array.from({ length: 50 }, (_, i) => `Dashboard step ${i + 1}`);
  const created = await call(`mutation($input: CreateTaskInput!) { createTask(input: $input) { task { id } items { id } } }`, {
    input: { title: 'The dashboard task', goal: 'Everything on one screen.', items: labels, domain: 'bench/dashboard' },
  });
  const taskId = created.createTask.task.id;
  const ids = created.createTask.items.map((item) => item.id);
  const id = (i) => ids[i % ids.length];
  await call(`mutation($input: EditTaskInput!) { editTask(input: $input) { id } }`, { input: { id: taskId, goal: `Everything on one screen, like [[#${id(0)}]] and [[#${id(7)}]].` } });
  for (let i = 0; i < 20; i += 1) {
    await call(`mutation($input: AddTaskNoteInput!) { addTaskNote(input: $input) { id } }`, { input: {
      taskId, title: `Brief ${i + 1}`, items: [id(i * 2), id(i * 2 + 1)],
      brief: {
        goal: `Finish [[#${id(i * 2)}]] after [[#${id(i * 2 + 5)}]].`, context: `Read [[#${id(i + 3)}]] first.`, steps: `Do [[#${id(i * 2)}]], then [[#${id(i * 2 + 1)}]].`,
        pitfalls: 'Do not skip the replay.', doneWhen: 'The test passes.', extraInfo: i % 2 ? `See [[#${id(i + 9)}]].` : null,
        dependsOn: [{ item: id(i * 2 + 5), reason: `needs [[#${id(i * 2 + 5)}]]` }],
      },
    } });
  }
  for (let i = 0; i < 20; i += 1) {
    await call(`mutation($input: AddCommentInput!) { addComment(input: $input) { id } }`, { input: { taskId, item: i % 2 ? id(i) : null, body: `On [[#${id(i + 1)}]]: looks right.` } });
  }
  const note = await call(`mutation($input: CreateNoteInput!) { createNote(input: $input) { id } }`, { input: { title: 'Why one screen', body: 'Because.', domain: 'bench/dashboard' } });
  for (let i = 0; i < 5; i += 1) {
    await call(UPDATE_ITEM, { input: { id: id(i * 3), related: [note.createNote.id] } });
  }
  for (let i = 0; i < 10; i += 1) await call(UPDATE_ITEM, { input: { id: id(i), state: i < 6 ? 'DONE' : 'IN_PROGRESS' } });
  return taskId;
}
