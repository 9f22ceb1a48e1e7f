import { useEffect, useRef, useState } from 'preact/hooks';
import { gql } from '../api';
import { useStateWords } from '../state-words';
import { Refusal, when } from '../widgets';

// A row without the list as it stood (up to 500 items each): that is read when the row is opened.
const EVENT = 'id action at sessionId changes { itemId kind text from to }';
const HISTORY = `query($id: ID!, $first: Int!, $after: String) { task(id: $id) {
  history(first: $first, after: $after, newestFirst: true) { totalCount pageInfo { hasNextPage endCursor } edges { cursor node { ${EVENT} } } } } }`;
const SNAPSHOT = `query($id: ID!, $after: String) { task(id: $id) { history(first: 1, after: $after, newestFirst: true) { nodes { id items { id text state } } } } }`;
const PAGE = 30;

/**
 * Every change, newest first, read a page at a time when the reader opens it
 * (never with the task): "Show older" pages back, and a change arriving while
 * it is open (`changes` bumps) reads the newest page again and puts the new
 * rows on top. Each row expands to the list at that point and what changed.
 */
export function History(props: { taskId: string; count: number; changes: number; title?: string; open?: boolean; rowTitle?: (event: any) => string }) {
  const title = props.title ?? 'History';
  const [open, setOpen] = useState(Boolean(props.open));
  const [rows, setRows] = useState<any[]>([]);
  const [cursor, setCursor] = useState<{ after: string | null; more: boolean }>({ after: null, more: false });
  const [error, setError] = useState<string | null>(null);
  const loaded = useRef(false);
  // Each row keeps the cursor of the row before it: the one place to ask for just that event again, with its list.
  const read = async (after: string | null) => {
    const page = (await gql(HISTORY, { id: props.taskId, first: PAGE, after })).task?.history;
    if (!page) return null;
    let before = after;
    const nodes = page.edges.map((edge: any) => { const row = { ...edge.node, before }; before = edge.cursor; return row; });
    return { ...page, nodes };
  };

  useEffect(() => {
    loaded.current = false;
    setRows([]);
  }, [props.taskId]);
  useEffect(() => {
    if (!open) return;
    void read(null).then((page) => {
      if (!page) return;
      setError(null);
      if (!loaded.current) {
        loaded.current = true;
        setRows(page.nodes);
        setCursor({ after: page.pageInfo.endCursor, more: page.pageInfo.hasNextPage });
        return;
      }
      // The newest page as read now (its rows' cursors are right for their new neighbours), then the older rows already shown.
      setRows((old) => {
        const fresh = new Set(page.nodes.map((event: any) => event.id));
        return [...page.nodes, ...old.filter((event) => !fresh.has(event.id))];
      });
    }, (failure: Error) => setError(failure.message));
  }, [open, props.taskId, props.changes]);

  const older = async () => {
    const page = await read(cursor.after).catch((failure: Error) => { setError(failure.message); return null; });
    if (!page) return;
    setRows((old) => [...old, ...page.nodes]);
    setCursor({ after: page.pageInfo.endCursor, more: page.pageInfo.hasNextPage });
  };

  return (
    <section class="history" aria-label={title}>
      <details open={open} onToggle={(event) => setOpen((event.currentTarget as HTMLDetailsElement).open)}>
        <summary><h3>{title} <span class="muted">({props.count})</span></h3></summary>
        <Refusal error={error} />
        {open && rows.length === 0 && !error && <p class="muted">Loading…</p>}
        <ol class="events" reversed start={props.count}>
          {rows.map((event) => <HistoryRow key={event.id} event={event} taskId={props.taskId} rowTitle={props.rowTitle} />)}
        </ol>
        {cursor.more && <button type="button" onClick={() => void older()}>Show older changes ({props.count - rows.length} more)</button>}
      </details>
    </section>
  );
}

/** One change; opening it reads the list as it stood then. */
function HistoryRow({ event, taskId, rowTitle }: { event: any; taskId: string; rowTitle?: (event: any) => string }) {
  const [list, setList] = useState<any[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [opened, setOpened] = useState(false);
  // A plan's rows read in its tool set's words ("In progress → Completed" for whole-list), a domain task's in the knowledge base's.
  const STATE_LABEL = useStateWords();
  const open = (isOpen: boolean) => {
    setOpened(isOpen);
    if (!isOpen || list) return;
    gql(SNAPSHOT, { id: taskId, after: event.before }).then(
      (data) => setList(data.task?.history.nodes[0]?.items ?? []),
      (failure: Error) => setError(failure.message),
    );
  };
  return (
    <li>
      <details onToggle={(e) => open((e.currentTarget as HTMLDetailsElement).open)}>
        <summary>{rowTitle ? rowTitle(event) : event.action.toLowerCase().replace(/_/g, ' ')}{' '}
          <span class="muted">· {when(event.at)} · {event.sessionId ? `agent ${event.sessionId.slice(0, 8)}` : 'a person (dashboard)'}</span>
        </summary>
        {opened && event.sessionId && <p class="small">Made by <a href={`#/sessions/${event.sessionId}`}>session {event.sessionId.slice(0, 8)}</a></p>}
        <div class="cols">
          <div>
            <h4>The list</h4>
            <Refusal error={error} />
            {!opened ? null : list ? <ol>{list.map((item: any) => <li class={item.state}><span class={`state ${item.state}`}>{STATE_LABEL[item.state]}</span> {item.text}</li>)}</ol> : !error && <p class="muted">Loading…</p>}
          </div>
          <div>
            <h4>What changed</h4>
            {event.changes.length === 0 ? <p class="muted">Nothing in the list.</p> : (
              <ul class="diff">{event.changes.map((change: any) => <li class={change.kind}>{describe(change, STATE_LABEL)}</li>)}</ul>
            )}
          </div>
        </div>
      </details>
    </li>
  );
}

function describe(change: any, STATE_LABEL: Readonly<Record<string, string>>): string {
  const state = (value: string | null) => (value ? STATE_LABEL[value] ?? value : '');
  switch (change.kind) {
    case 'ADDED': return `+ ${change.text} (${state(change.to)})`;
    case 'REMOVED': return `− ${change.text}`;
    case 'RENAMED': return `✎ “${change.from}” → “${change.to}”`;
    case 'STATE': return `${change.text}: ${state(change.from)} → ${state(change.to)}`;
    case 'MOVED': return `↕ ${change.text}: #${change.from} → #${change.to}`;
    case 'CLAIMED': return `⚑ ${change.text}: claimed by session ${String(change.to).slice(0, 8)}`;
    case 'RELEASED': return `⚐ ${change.text}: session ${String(change.from).slice(0, 8)}’s claim released`;
    default: return `${change.kind} ${change.text}`;
  }
}
