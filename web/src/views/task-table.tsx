import { useEffect, useState } from 'preact/hooks';
import { gql } from '../api';
import { useQuery } from '../live';
import { NewMark, useUnread } from '../since-looked';
import { stuckCount } from '../states';
import { Ago, Loading, Progress } from '../widgets';

const TASKS = `query($domain: String!, $status: MemoryStatus, $order: MemoryOrder, $first: Int!, $after: String) {
  memories(domain: $domain, kind: TASK, status: $status, order: $order, first: $first, after: $after) {
    totalCount pageInfo { hasNextPage endCursor }
    nodes { id title domain status createdAt updatedAt ... on Task { state progress { done total blocked failed inProgress pending dropped } claimedBy { id name } } }
  } }`;

export interface TaskRow { id: string; title: string; domain: string; state: string; createdAt: string; updatedAt: string; progress: { done: number; total: number; blocked: number; failed: number; inProgress: number; pending: number; dropped: number }; claimedBy?: { id: string; name: string | null }[] }

/** Who holds claims on a task, in words: the agents' names (a short id when unnamed), or null when no one does. */
export function holdersOf(task: TaskRow): string | null {
  const names = (task.claimedBy ?? []).map((session) => session.name || `session ${session.id.slice(0, 8)}`);
  return names.length ? names.join(', ') : null;
}
const NOT_CLAIMED = 'Not claimed';

/** A task's column on the board and its group in the table: what it needs, at a glance. */
export type Lane = 'STUCK' | 'DOING' | 'TODO' | 'COMPLETED' | 'CANCELLED';
export const LANES: readonly Lane[] = ['STUCK', 'DOING', 'TODO', 'COMPLETED', 'CANCELLED'];
export const LANE_LABEL: Record<Lane, string> = { STUCK: 'Stuck', DOING: 'Doing', TODO: 'To do', COMPLETED: 'Done', CANCELLED: 'Cancelled' };

export function laneOf(task: TaskRow): Lane {
  if (task.state === 'COMPLETED' || task.state === 'CANCELLED') return task.state;
  if (stuckCount(task.progress) > 0) return 'STUCK';
  return task.progress.inProgress > 0 || task.progress.done + task.progress.dropped > 0 ? 'DOING' : 'TODO';
}

/**
 * How the table is shown, kept in the address (#/domains/<path>?sort=…&show=…&group=…&view=…)
 * so a view can be shared and survives a reload. The defaults are left out of the address.
 */
export interface TableView { sort: TableSort; show: Lane | 'ALL'; group: boolean; byHolder: boolean; board: boolean; q: string }
export type TableSort = 'updated' | 'created' | 'stuck' | 'progress' | 'lane' | 'claimed' | 'title';
const SORTS: Record<TableSort, string> = { updated: 'Recently updated', created: 'Newest first', stuck: 'Most stuck first', progress: 'Least done first', lane: 'State', claimed: 'Claimed by', title: 'Title' };

export function tableViewOf(params: URLSearchParams): TableView {
  const sort = params.get('sort') as TableSort | null;
  const show = params.get('show') as Lane | null;
  return {
    sort: sort && sort in SORTS ? sort : 'updated',
    show: show && LANES.includes(show) ? show : 'ALL',
    group: params.get('group') === 'state',
    byHolder: params.get('group') === 'claimed',
    board: params.get('view') === 'board',
    q: params.get('q') ?? '',
  };
}

/** The address of the domain's table shown as `view`; other parameters of the address (archived) are kept. */
function addressOf(path: string, params: URLSearchParams, view: TableView): string {
  const next = new URLSearchParams(params);
  const set = (key: string, value: string | null) => (value ? next.set(key, value) : next.delete(key));
  set('sort', view.sort === 'updated' ? null : view.sort);
  set('show', view.show === 'ALL' ? null : view.show);
  set('group', view.group ? 'state' : view.byHolder ? 'claimed' : null);
  set('view', view.board ? 'board' : null);
  set('q', view.q.trim() || null);
  const query = next.toString();
  return `#/domains/${path}${query ? `?${query}` : ''}`;
}

const doneShare = (task: TaskRow) => (task.progress.total ? task.progress.done / task.progress.total : 0);
/** Sorts done in the page over every loaded task; ties keep the server's order (most recently updated first). */
const ORDER: Record<Exclude<TableSort, 'updated' | 'created'>, (a: TaskRow, b: TaskRow) => number> = {
  stuck: (a, b) => stuckCount(b.progress) - stuckCount(a.progress),
  progress: (a, b) => doneShare(a) - doneShare(b),
  lane: (a, b) => LANES.indexOf(laneOf(a)) - LANES.indexOf(laneOf(b)),
  // Held tasks first, by holder's name; those no one holds last.
  claimed: (a, b) => (holdersOf(a) === null ? 1 : 0) - (holdersOf(b) === null ? 1 : 0) || (holdersOf(a) ?? '').localeCompare(holdersOf(b) ?? ''),
  title: (a, b) => a.title.localeCompare(b.title),
};

/**
 * A domain's tasks as a table or a board by state: sorted (most recently
 * updated first by default, read in that order from the server, so the task
 * an agent just changed is the first row), filtered by state and title, and
 * grouped by state.
 */
export function TaskTable({ path, archived, params, live }: { path: string; archived: boolean; params: URLSearchParams; live: { query: string; variables: Record<string, unknown> } }) {
  const view = tableViewOf(params);
  const tasks = useAllTasks(path, archived ? 'ARCHIVED' : 'ACTIVE', view.sort === 'created' ? 'NEWEST' : 'RECENTLY_UPDATED', live);
  const [q, setQ] = useState(view.q);
  useEffect(() => setQ(view.q), [view.q]);
  const go = (change: Partial<TableView>) => { location.hash = addressOf(path, params, { ...view, ...change }); };
  const shown = (tasks.nodes ?? []).filter((task) => (view.show === 'ALL' || laneOf(task) === view.show) && task.title.toLowerCase().includes(view.q.trim().toLowerCase()));
  if (view.sort !== 'updated' && view.sort !== 'created') shown.sort(ORDER[view.sort]);
  // Marks for the browser test's timing: when the first rows, and all of them, are on screen.
  const count = tasks.nodes?.length ?? 0;
  useEffect(() => {
    if (!tasks.nodes) return;
    if (!performance.getEntriesByName('tasks-first-rows').length) performance.mark('tasks-first-rows');
    if (tasks.complete && !performance.getEntriesByName('tasks-all-rows').length) requestAnimationFrame(() => performance.mark('tasks-all-rows'));
  }, [count, tasks.complete]);
  // Groups by holder: held tasks by name, then those no one holds.
  const holders = view.byHolder ? [...new Set(shown.map((task) => holdersOf(task) ?? NOT_CLAIMED))].sort((a, b) => (a === NOT_CLAIMED ? 1 : 0) - (b === NOT_CLAIMED ? 1 : 0) || a.localeCompare(b)) : [];
  const lanes = view.group || view.board ? LANES.filter((lane) => shown.some((task) => laneOf(task) === lane)) : [];
  return (
    <>
      <form class="table-tools" aria-label="Sort, filter and group the tasks" onSubmit={(event) => { event.preventDefault(); go({ q }); }}>
        <label><span>Order by</span>
          <select value={view.sort} onChange={(event) => go({ sort: event.currentTarget.value as TableSort })}>
            {Object.entries(SORTS).map(([value, label]) => <option value={value}>{label}</option>)}
          </select></label>
        <label><span>Only</span>
          <select value={view.show} onChange={(event) => go({ show: event.currentTarget.value as TableView['show'] })}>
            <option value="ALL">Every state</option>
            {LANES.map((lane) => <option value={lane}>{LANE_LABEL[lane]}</option>)}
          </select></label>
        <label class="inline"><input type="checkbox" checked={view.group} onChange={(event) => go({ group: event.currentTarget.checked, byHolder: false })} /> Group by state</label>
        <label class="inline"><input type="checkbox" checked={view.byHolder} onChange={(event) => go({ byHolder: event.currentTarget.checked, group: false })} /> Group by claimed by</label>
        <label><span>Title has</span><input type="search" value={q} onInput={(event) => setQ(event.currentTarget.value)} onBlur={() => q !== view.q && go({ q })} /></label>
        <span role="group" aria-label="Layout" class="layout">
          <a href={addressOf(path, params, { ...view, board: false })} aria-current={view.board ? undefined : 'page'}>Table</a>
          <a href={addressOf(path, params, { ...view, board: true })} aria-current={view.board ? 'page' : undefined}>Board</a>
        </span>
      </form>
      {tasks.nodes && <p class="muted small" aria-live="polite">{tasks.complete ? (shown.length === tasks.nodes.length ? `${shown.length} tasks` : `${shown.length} of ${tasks.nodes.length} tasks`) : `${tasks.nodes.length} of ${tasks.total} tasks loaded; the rest are loading`}</p>}
      {!tasks.nodes ? <Loading error={tasks.error} /> : tasks.nodes.length === 0 ? <p class="muted">No {archived ? 'archived' : 'open'} tasks here.</p> :
        shown.length === 0 ? <p class="muted">No task matches this view.</p> :
        view.board ? <Board path={path} lanes={lanes} tasks={shown} /> : (
        <table class="tasks sticky-head">
          <thead><tr><th scope="col">Task</th><th scope="col">Progress</th><th scope="col">State</th><th scope="col">Claimed by</th><th scope="col">Updated</th></tr></thead>
          {view.byHolder ? holders.map((holder) => (
            <tbody>
              <tr class="group-row"><th scope="rowgroup" colSpan={5}>{holder} <span class="count">({shown.filter((task) => (holdersOf(task) ?? NOT_CLAIMED) === holder).length})</span></th></tr>
              {shown.filter((task) => (holdersOf(task) ?? NOT_CLAIMED) === holder).map((task) => <TaskRowView task={task} path={path} />)}
            </tbody>
          )) : view.group ? lanes.map((lane) => (
            <tbody>
              <tr class="group-row"><th scope="rowgroup" colSpan={5}>{LANE_LABEL[lane]} <span class="count">({shown.filter((task) => laneOf(task) === lane).length})</span></th></tr>
              {shown.filter((task) => laneOf(task) === lane).map((task) => <TaskRowView task={task} path={path} />)}
            </tbody>
          )) : <tbody>{shown.map((task) => <TaskRowView task={task} path={path} />)}</tbody>}
        </table>
      )}
    </>
  );
}

function TaskRowView({ task, path }: { task: TaskRow; path: string }) {
  const stuck = stuckCount(task.progress);
  const lane = laneOf(task);
  const unread = useUnread()(task.updatedAt, task.id);
  return (
    <tr class={unread ? 'unread-row' : undefined}>
      <td>{unread && <><NewMark /> </>}<a href={`#/task/${task.id}`}>{task.title}</a>{task.domain !== path && <span class="muted"> · {task.domain}</span>}</td>
      <td><Progress done={task.progress.done} total={task.progress.total} label={`${task.title}: ${task.progress.done} of ${task.progress.total} done`} /></td>
      <td><span class={`state lane-${lane}`}>{LANE_LABEL[lane]}</span>{stuck > 0 && <span class="muted small"> · {stuck} blocked or failed</span>}</td>
      <td>{holdersOf(task) ?? <span class="muted">—</span>}</td>
      <td class="nowrap"><Ago iso={task.updatedAt} /></td>
    </tr>
  );
}

/** The tasks as columns by state: each column a list, so a screen reader hears its name and count. */
function Board({ path, lanes, tasks }: { path: string; lanes: readonly Lane[]; tasks: TaskRow[] }) {
  const unread = useUnread();
  return (
    <div class="board">
      {lanes.map((lane) => {
        const cards = tasks.filter((task) => laneOf(task) === lane);
        return (
          <section class={`lane lane-${lane}`} aria-labelledby={`lane-${lane}`}>
            <h3 id={`lane-${lane}`}>{LANE_LABEL[lane]} <span class="count">({cards.length})</span></h3>
            <ul>
              {cards.map((task) => (
                <li class="card">
                  {unread(task.updatedAt, task.id) && <><NewMark /> </>}<a href={`#/task/${task.id}`}>{task.title}</a>{task.domain !== path && <span class="muted small"> · {task.domain}</span>}
                  <div class="small muted"><Progress done={task.progress.done} total={task.progress.total} label={`${task.title}: ${task.progress.done} of ${task.progress.total} done`} /> · <Ago iso={task.updatedAt} /></div>
                </li>
              ))}
            </ul>
          </section>
        );
      })}
    </div>
  );
}

/** What TASKS answers: a page of the domain's tasks. */
interface TasksAnswer { memories: { totalCount: number; pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: TaskRow[] } }

/** Every task of the domain in `order`: a small first page paints at once, the rest follow 200 at a time. */
function useAllTasks(domain: string, status: string, order: 'NEWEST' | 'RECENTLY_UPDATED', live: { query: string; variables: Record<string, unknown> }) {
  const first = useQuery<TasksAnswer>(TASKS, { domain, status, order, first: 50 }, live);
  const [rest, setRest] = useState<{ key: string; nodes: TaskRow[] }>({ key: '', nodes: [] });
  const page = first.data?.memories;
  const key = page ? `${domain}|${status}|${order}|${page.pageInfo.endCursor}|${page.totalCount}|${page.nodes[0]?.updatedAt}` : '';
  if (page?.pageInfo.hasNextPage && rest.key !== key) {
    rest.key = key;
    void (async () => {
      const nodes: TaskRow[] = [];
      let after = page.pageInfo.endCursor;
      for (let i = 0; after && i < 25; i += 1) {
        const next = (await gql<TasksAnswer>(TASKS, { domain, status, order, first: 200, after })).memories;
        nodes.push(...next.nodes);
        after = next.pageInfo.hasNextPage ? next.pageInfo.endCursor : null;
      }
      setRest({ key, nodes });
    })();
  }
  const more = page?.pageInfo.hasNextPage ?? false;
  const loadedRest = more && rest.key === key && rest.nodes.length > 0;
  // A task that moved between the first page and the rest while they loaded is shown once, where it is newest.
  const nodes = page ? ([...page.nodes, ...(loadedRest ? rest.nodes : [])] as TaskRow[]) : null;
  const seen = new Set<string>();
  return {
    nodes: nodes && nodes.filter((task) => !seen.has(task.id) && seen.add(task.id)),
    complete: Boolean(page) && (!more || loadedRest),
    total: page?.totalCount ?? 0,
    error: first.error,
  };
}
