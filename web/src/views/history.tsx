import { useEffect, useRef, useState } from 'preact/hooks';
import { gql } from '../api';
import { sessionLabel } from '../session-name';
import { useStateWords } from '../state-words';
import { Refusal, when } from '../widgets';

// A row without the list as it stood (up to 500 items each): that is read when the row is opened.
const EVENT = 'id action at sessionId session { id name } changes { itemId kind text from to session { id name } }';
const FILTER_VARS = '$actions: [String!], $sessionId: ID, $byPerson: Boolean';
const FILTER_ARGS = 'actions: $actions, sessionId: $sessionId, byPerson: $byPerson';
const HISTORY = `query($id: ID!, $first: Int!, $after: String, $newestFirst: Boolean = true, ${FILTER_VARS}) { task(id: $id) {
  history(first: $first, after: $after, newestFirst: $newestFirst, ${FILTER_ARGS}) { totalCount pageInfo { hasNextPage endCursor } edges { cursor node { ${EVENT} } } } } }`;
const SNAPSHOT = `query($id: ID!, $after: String, ${FILTER_VARS}) { task(id: $id) { history(first: 1, after: $after, newestFirst: true, ${FILTER_ARGS}) { nodes { id items { id text state } } } } }`;
const PAGE = 30;

/** The kinds of change a reader filters by: each a set of TaskEvent actions. */
const KINDS: Record<string, { label: string; actions: string[] | null }> = {
  all: { label: 'All changes', actions: null },
  state: { label: 'State changes', actions: ['ITEM_STATE'] },
  items: { label: 'Items added, removed, renamed or moved', actions: ['ITEMS_ADDED', 'ITEM_DELETED', 'ITEM_RESTORED', 'ITEM_RENAMED', 'ITEM_MOVED'] },
  claims: { label: 'Claims', actions: ['ITEM_CLAIMED', 'CLAIM_RELEASED', 'CLAIM_OVERRIDDEN'] },
  comments: { label: 'Comments and notes', actions: ['COMMENT_ADDED', 'NOTE_ADDED', 'NOTE_EDITED', 'NOTE_DELETED'] },
  plan: { label: 'Plan rewrites', actions: ['PLAN_WRITTEN', 'PLAN_CLEARED'] },
  task: { label: 'Task edits, links and waits', actions: ['TASK_CREATED', 'TASK_EDITED', 'ITEM_LINKED', 'ITEM_WAITS'] },
};

/** Who made a change: anyone, a person on the dashboard, or one agent session (its id). */
type Maker = 'anyone' | 'person' | string;

/** One item's change in an event (ItemChange): `from` and `to` are states, texts, places or session ids by kind. */
export interface ItemChange { itemId: string | null; kind: string; text: string; from: string | null; to: string | null; session: { id: string; name: string | null } | null }
/** An event as EVENT reads it. */
export interface TaskEvent { id: string; action: string; at: string; sessionId: string | null; session: { id: string; name: string | null } | null; changes: ItemChange[] }
interface HistoryPage { totalCount: number; pageInfo: { hasNextPage: boolean; endCursor: string | null }; edges: { cursor: string; node: TaskEvent }[] }
interface ListItem { id: string; text: string; state: string }

interface Row { event: TaskEvent; cursor: string; before: string | null }
interface View { rows: Row[]; total: number; newer: boolean; older: boolean; at: 'newest' | 'middle' | 'oldest' }

/** The names this reader has seen agents by, so the agent filter lists them. */
function rememberAgents(known: Map<string, string>, rows: Row[]): Map<string, string> {
  const next = new Map(known);
  for (const { event } of rows) if (event.session) next.set(event.session.id, sessionLabel(event.session));
  return next;
}

/**
 * Every change, newest first, a page at a time, read when the reader opens
 * it (never with the task). Keyset pages both ways: Newest, Newer, Older and
 * Oldest each read one page, whatever the history's length, so the first
 * change of 5,000 is one action away. Filters by kind and by who made it.
 * A change arriving while the newest page is shown (`changes` bumps) reads it
 * again. Each row names the item, from → to and the session by name, and
 * expands to the list at that point.
 */
export function History(props: { taskId: string; count: number; changes: number; title?: string; open?: boolean; rowTitle?: (event: TaskEvent) => string }) {
  const title = props.title ?? 'History';
  const [open, setOpen] = useState(Boolean(props.open));
  const [kind, setKind] = useState('all');
  const [maker, setMaker] = useState<Maker>('anyone');
  const [view, setView] = useState<View | null>(null);
  const [agents, setAgents] = useState<Map<string, string>>(new Map());
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const filter = { actions: KINDS[kind].actions, sessionId: maker !== 'anyone' && maker !== 'person' ? maker : null, byPerson: maker === 'person' ? true : null };
  const filtered = kind !== 'all' || maker !== 'anyone';
  const where = useRef(view?.at ?? 'newest');
  where.current = view?.at ?? 'newest';

  /**
   * One page. Newest first (`back`): the rows after `after`, the first row's
   * newer neighbour being `after` itself. Oldest first: one row more than
   * shown is read, the cursor of the newer neighbour of the page's top row.
   */
  const read = async (after: string | null, back: boolean): Promise<View | null> => {
    const page = (await gql<{ task: { history: HistoryPage } | null }>(HISTORY, { id: props.taskId, first: back ? PAGE : PAGE + 1, after, newestFirst: back, ...filter })).task?.history;
    if (!page) return null;
    if (back) {
      let before = after;
      const rows = page.edges.map((edge) => { const row = { event: edge.node, cursor: edge.cursor, before }; before = edge.cursor; return row; });
      return { rows, total: page.totalCount, newer: after !== null, older: page.pageInfo.hasNextPage, at: after === null ? 'newest' : page.pageInfo.hasNextPage ? 'middle' : 'oldest' };
    }
    const { edges } = page;
    const beyond = edges.length > PAGE ? edges[PAGE] : null;
    const shown = edges.slice(0, PAGE).reverse();
    let before: string | null = beyond?.cursor ?? null;
    const rows = shown.map((edge) => { const row = { event: edge.node, cursor: edge.cursor, before }; before = edge.cursor; return row; });
    return { rows, total: page.totalCount, newer: beyond !== null, older: after !== null, at: beyond === null ? 'newest' : after === null ? 'oldest' : 'middle' };
  };

  const go = async (where: 'newest' | 'newer' | 'older' | 'oldest') => {
    setBusy(true);
    try {
      const rows = view?.rows ?? [];
      const next = where === 'newest' ? await read(null, true)
        : where === 'older' ? await read(rows.at(-1)?.cursor ?? null, true)
        : where === 'newer' ? await read(rows[0]?.cursor ?? null, false)
        : await read(null, false);
      if (!next) return;
      setError(null);
      setView(next);
      setAgents((known) => rememberAgents(known, next.rows));
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setBusy(false);
    }
  };

  useEffect(() => setView(null), [props.taskId]);
  // Opened, a filter changed, or a change arrived while the newest page shows: read the newest page.
  useEffect(() => {
    if (!open) return;
    if (view && where.current !== 'newest') {
      setView((old) => (old ? { ...old, newer: true } : old));
      return;
    }
    void go('newest');
  }, [open, props.taskId, props.changes]);
  const filtersRead = useRef(false);
  useEffect(() => {
    // Not on the first render: the effect above reads the first page.
    if (!filtersRead.current) { filtersRead.current = true; return; }
    if (open) void go('newest');
  }, [kind, maker]);

  const total = view?.total ?? props.count;
  return (
    <section class="history" aria-label={title}>
      <details open={open} onToggle={(event) => setOpen((event.currentTarget as HTMLDetailsElement).open)}>
        <summary><h3>{title} <span class="muted">({filtered && view ? `${view.total} of ${props.count}` : props.count})</span></h3></summary>
        <div class="history-tools" role="group" aria-label={`Filter the ${title.toLowerCase()}`}>
          <label><span>Kind</span>
            <select value={kind} onChange={(event) => setKind(event.currentTarget.value)}>
              {Object.entries(KINDS).map(([value, { label }]) => <option value={value}>{label}</option>)}
            </select></label>
          <label><span>Made by</span>
            <select value={maker} onChange={(event) => setMaker(event.currentTarget.value)}>
              <option value="anyone">Anyone</option>
              <option value="person">A person (dashboard)</option>
              {[...agents].map(([id, name]) => <option value={id}>{name}</option>)}
            </select></label>
        </div>
        <Refusal error={error} />
        {open && !view && !error && <p class="muted">Loading…</p>}
        {view && view.rows.length === 0 && <p class="muted">No change {filtered ? 'matches these filters' : 'recorded yet'}.</p>}
        <ol class="events">
          {view?.rows.map((row) => <HistoryRow key={row.event.id} row={row} taskId={props.taskId} filter={filter} rowTitle={props.rowTitle} />)}
        </ol>
        {view && total > 0 && (
          <nav class="pager" aria-label={`Page through the ${title.toLowerCase()}`}>
            <button type="button" disabled={busy || !view.newer} onClick={() => void go('newest')}>⇤ Newest</button>
            <button type="button" disabled={busy || !view.newer} onClick={() => void go('newer')}>← Newer</button>
            <button type="button" disabled={busy || !view.older} onClick={() => void go('older')}>Older →</button>
            <button type="button" disabled={busy || !view.older} onClick={() => void go('oldest')}>Oldest ⇥</button>
            <span class="muted small" aria-live="polite">{view.at === 'newest' ? 'The newest changes' : view.at === 'oldest' ? 'The oldest changes' : `Changes of ${when(view.rows[0]?.event.at)}`}</span>
          </nav>
        )}
      </details>
    </section>
  );
}

/** Who made a change, by name: the agent session's, or a person on the dashboard. */
export function madeBy(event: { sessionId: string | null; session?: { id: string; name: string | null } | null }): string {
  if (event.session) return sessionLabel(event.session);
  return event.sessionId ? sessionLabel({ id: event.sessionId }) : 'a person (dashboard)';
}

/** One change; opening it reads the list as it stood then. */
function HistoryRow({ row, taskId, filter, rowTitle }: { row: Row; taskId: string; filter: Record<string, unknown>; rowTitle?: (event: TaskEvent) => string }) {
  const { event } = row;
  const [list, setList] = useState<ListItem[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [opened, setOpened] = useState(false);
  // A plan's rows read in its tool set's words ("In progress → Completed" for whole-list), a domain task's in the knowledge base's.
  const STATE_LABEL = useStateWords();
  const open = (isOpen: boolean) => {
    setOpened(isOpen);
    if (!isOpen || list) return;
    gql<{ task: { history: { nodes: { id: string; items: ListItem[] }[] } } | null }>(SNAPSHOT, { id: taskId, after: row.before, ...filter }).then(
      (data) => setList(data.task?.history.nodes[0]?.items ?? []),
      (failure: Error) => setError(failure.message),
    );
  };
  const action = rowTitle ? rowTitle(event) : event.action.toLowerCase().replace(/_/g, ' ');
  const what = event.changes.length === 1 ? describe(event.changes[0], STATE_LABEL) : event.changes.length > 1 ? `${event.changes.length} items` : '';
  return (
    <li>
      <details onToggle={(e) => open((e.currentTarget as HTMLDetailsElement).open)}>
        <summary>{action}{what ? <> — <span class="what">{what}</span></> : null}{' '}
          <span class="muted">· {madeBy(event)} · <time dateTime={event.at}>{when(event.at)}</time></span>
        </summary>
        {opened && event.sessionId && <p class="small">Made by <a href={`#/sessions/${event.sessionId}`}>{madeBy(event)}</a></p>}
        <div class="cols">
          <div>
            <h4>The list</h4>
            <Refusal error={error} />
            {!opened ? null : list ? <ol>{list.map((item) => <li class={item.state}><span class={`state ${item.state}`}>{STATE_LABEL[item.state]}</span> {item.text}</li>)}</ol> : !error && <p class="muted">Loading…</p>}
          </div>
          <div>
            <h4>What changed</h4>
            {event.changes.length === 0 ? <p class="muted">Nothing in the list.</p> : (
              <ul class="diff">{event.changes.map((change) => <li class={change.kind}>{describe(change, STATE_LABEL)}</li>)}</ul>
            )}
          </div>
        </div>
      </details>
    </li>
  );
}

/** The holder of a claim a change names, by name ("Migration agent"), else by its short id. */
function holder(change: Pick<ItemChange, 'session'>, id: string | null): string {
  return change.session ? sessionLabel(change.session) : id ? sessionLabel({ id }) : 'a session';
}

/** One item change in words, with names: the item, from → to, whose claim. */
export function describe(change: Omit<ItemChange, 'itemId'>, STATE_LABEL: Readonly<Record<string, string>>): string {
  const state = (value: string | null) => (value ? STATE_LABEL[value] ?? value : '');
  switch (change.kind) {
    case 'ADDED': return `+ ${change.text} (${state(change.to)})`;
    case 'REMOVED': return `− ${change.text}`;
    case 'RENAMED': return `✎ “${change.from}” → “${change.to}”`;
    case 'STATE': return `${change.text}: ${state(change.from)} → ${state(change.to)}`;
    case 'MOVED': return `↕ ${change.text}: #${change.from} → #${change.to}`;
    case 'CLAIMED': return `⚑ ${change.text}: claimed by ${holder(change, change.to)}`;
    case 'RELEASED': return `⚐ ${change.text}: ${holder(change, change.from)}’s claim released`;
    case 'OVERRIDDEN': return `⚠ ${change.text}: changed past ${holder(change, change.from)}’s claim`;
    default: return `${change.kind} ${change.text}`;
  }
}
