import { useEffect, useState } from 'preact/hooks';
import { gql } from '../api';
import { SessionClaims } from '../claims';
import { useQuery } from '../live';
import { Loading, useTitle, when } from '../widgets';
import { History } from './history';
import { sessionLabel } from '../session-name';
import { AgentView } from './plan-view';
import { StateWords, presetOf, wordsFor } from '../state-words';
import { PLAN_STATE_WORDS } from '../../../src/domain/plan-render';
import type { PlanPreset } from '../../../src/domain/plan-rules';
import type { SessionRules } from '../task-types';

const PLAN = `id version progress { pending inProgress done dropped blocked failed total }
  items(first: 200) { nodes { id number text state note added } }`;
const SESSION_ROW = 'id name createdAt lastActiveAt finishedAt statusLine turn children { id name statusLine finishedAt lastActiveAt }';
const SESSIONS = `query($first: Int!, $after: String, $finished: Boolean, $search: String) {
  sessions(first: $first, after: $after, finished: $finished, search: $search) { totalCount pageInfo { hasNextPage endCursor } nodes { ${SESSION_ROW} } } }`;
const SESSION = `query($id: ID!) { session(id: $id) {
  id name preset createdAt lastActiveAt finishedAt statusLine turn domains parent { id name statusLine }
  rules { planOnce noteRequiredFor oneActive minItems maxItems maxTextLength maxNoteLength }
  standingPlan { id }
  plan { ${PLAN} history(first: 1) { totalCount } }
  children { id name statusLine finishedAt createdAt standingPlan { id } plan { ${PLAN} } }
} }`;
/** PLAN: a plan's version, counts and steps. */
interface Plan {
  id: string; version: number; progress: { pending: number; inProgress: number; done: number; dropped: number; blocked: number; failed: number; total: number };
  items: { nodes: { id: string; number: number | null; text: string; state: string; note: string | null; added: boolean }[] };
}
interface SessionRow {
  id: string; name: string | null; createdAt: string; lastActiveAt: string; finishedAt: string | null; statusLine: string; turn: number;
  children: { id: string; name: string | null; statusLine: string; finishedAt: string | null; lastActiveAt: string }[];
}
interface SessionsPage { totalCount: number; pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: SessionRow[] }
interface Session {
  id: string; name: string | null; preset: PlanPreset; createdAt: string; lastActiveAt: string; finishedAt: string | null; statusLine: string; turn: number; domains: string[];
  parent: { id: string; name: string | null; statusLine: string } | null;
  rules: SessionRules; standingPlan: { id: string } | null;
  plan: (Plan & { history: { totalCount: number } }) | null;
  children: { id: string; name: string | null; statusLine: string; finishedAt: string | null; createdAt: string; standingPlan: { id: string } | null; plan: Plan | null }[];
}

const SESSIONS_LIVE = 'subscription { sessionChanged { sessionId action } }';
const SESSION_LIVE = 'subscription($id: ID) { sessionChanged(id: $id) { sessionId action } }';
const PAGE = 50;

const GLYPH: Record<string, string> = { PENDING: '○', IN_PROGRESS: '◐', DONE: '●', DROPPED: '⊘', BLOCKED: '■', FAILED: '✕' };
/** The To-dos panel is whole-list's chat: its words. */
const NAME: Readonly<Record<string, string>> = PLAN_STATE_WORDS.WHOLE_LIST;
/** What each plan change is called in the chat: a whole-list update is "Update to-do list". */
function rowTitle(event: { action: string }): string {
  if (event.action === 'PLAN_WRITTEN') return 'Update to-do list';
  if (event.action === 'PLAN_CLEARED') return 'Cleared the to-do list';
  return event.action.toLowerCase().replace(/_/g, ' ');
}

/** Every session, newest first, a page at a time, filtered by state or found by id or name; when one is chosen, its plan as the chat shows it. */
export function SessionsView({ id, params }: { id: string | null; params: URLSearchParams }) {
  const show = params.get('show') === 'finished' ? 'finished' : params.get('show') === 'working' ? 'working' : 'all';
  const [find, setFind] = useState(params.get('find') ?? '');
  const variables = { first: PAGE, finished: show === 'all' ? null : show === 'finished', search: find.trim() || null };
  const list = useQuery<{ sessions: SessionsPage }>(SESSIONS, variables, { query: SESSIONS_LIVE, variables: {} });
  const [more, setMore] = useState<{ key: string; nodes: SessionRow[]; after: string | null }>({ key: '', nodes: [], after: null });
  const key = JSON.stringify(variables);
  useTitle(id ? `Session ${id.slice(0, 8)}` : 'Sessions');
  const page = list.data?.sessions;
  const extra: typeof more = more.key === key ? more : { key, nodes: [], after: null };
  const rows = page ? [...page.nodes, ...extra.nodes] : [];
  const after = extra.after ?? page?.pageInfo.endCursor ?? null;
  const hasMore = page ? (extra.nodes.length ? extra.after !== null : page.pageInfo.hasNextPage) : false;
  const loadMore = async () => {
    const next = (await gql<{ sessions: SessionsPage }>(SESSIONS, { ...variables, after })).sessions;
    setMore({ key, nodes: [...extra.nodes, ...next.nodes], after: next.pageInfo.hasNextPage ? next.pageInfo.endCursor : null });
  };
  const filterHref = (value: string) => `#/sessions${id ? `/${id}` : ''}${value === 'all' ? '' : `?show=${value}`}`;
  return (
    <div class="split">
      <nav aria-label="Sessions" class="tree">
        <h2>Sessions {page && <span class="count">({page.totalCount})</span>}</h2>
        <div class="filters" role="group" aria-label="Show sessions">
          {(['all', 'working', 'finished'] as const).map((value) => (
            <a href={filterHref(value)} aria-current={show === value ? 'true' : undefined}>{value === 'all' ? 'All' : value === 'working' ? 'Working' : 'Finished'}</a>
          ))}
        </div>
        <form role="search" class="search" onSubmit={(event) => event.preventDefault()}>
          <label><span>Find a session by id or name</span>
            <input type="search" value={find} placeholder="e.g. 3f2a or refund" onInput={(event) => setFind(event.currentTarget.value)} /></label>
        </form>
        {!page ? <Loading error={list.error} /> : rows.length === 0 ? <p class="muted">{find ? `No session’s id or name matches “${find}”.` : 'No sessions yet.'}</p> : (
          <ul class="session-list">
            {rows.map((session) => (
              <li>
                <a href={`#/sessions/${session.id}`} aria-current={session.id === id ? 'page' : undefined} title={session.id}>{session.name || session.id.slice(0, 8)}</a>{session.name && <span class="muted small"> {session.id.slice(0, 8)}</span>}{' '}
                <span class={session.finishedAt ? 'muted' : 'active-dot'}>{session.finishedAt ? 'finished' : 'working'}</span>
                <div class="small">{session.statusLine}</div>
                <div class="muted small">started <time dateTime={session.createdAt}>{when(session.createdAt)}</time> · active <time dateTime={session.lastActiveAt}>{when(session.lastActiveAt)}</time></div>
                {session.children.length > 0 && (
                  <ul class="helpers" aria-label={`Helpers of ${sessionLabel(session)}`}>
                    {session.children.map((child) => <li><a href={`#/sessions/${child.id}`} title={child.id}>↳ {child.name || child.id.slice(0, 8)}</a> <span class="muted small">{child.statusLine}</span></li>)}
                  </ul>
                )}
              </li>
            ))}
          </ul>
        )}
        {hasMore && <button type="button" onClick={() => void loadMore()}>Show more sessions ({rows.length} of {page!.totalCount})</button>}
      </nav>
      <section class="main">{id ? <SessionDetail id={id} /> : <p class="muted">Choose a session.</p>}</section>
    </div>
  );
}

function SessionDetail({ id }: { id: string }) {
  const session = useQuery<{ session: Session | null }>(SESSION, { id }, { query: SESSION_LIVE, variables: { id } });
  const [changes, setChanges] = useState(0);
  useEffect(() => setChanges((n) => n + 1), [session.data]);
  if (!session.data) return <Loading error={session.error} />;
  const s = session.data.session;
  if (!s) return <p role="alert">There is no session {id}. Check the id, or find the session in the list.</p>;
  // The plan in its tool set's words: whole-list's To-dos panel, or the table or list step-ops and plan-and-finish answer their agent.
  const preset = presetOf(s)!;
  const words = wordsFor(preset);
  return (
    <StateWords.Provider value={words}>
    <article aria-labelledby="session-title">
      {s.parent && <p class="crumbs">Helper of <a href={`#/sessions/${s.parent.id}`}>{sessionLabel(s.parent)}</a></p>}
      <h2 id="session-title" tabIndex={-1}>{s.name ? s.name : `Session ${s.id.slice(0, 8)}`}</h2>
      <p class="status-line" aria-label="Status">{s.statusLine}</p>
      <p class="muted">id {s.id} · started {when(s.createdAt)} · last active {when(s.lastActiveAt)} · turn {s.turn}{s.finishedAt ? ` · finished ${when(s.finishedAt)}` : ''}{s.domains.length ? ` · domains: ${s.domains.join(', ')}` : ''}</p>
      {s.plan && <p><a href={`#/task/${s.plan.id}`}>Open the plan as a checklist</a> <span class="muted">— change its steps there{s.rules.planOnce ? ' (it is locked for the agent; your changes are recorded as a person’s edits)' : ''}{s.rules.noteRequiredFor.length ? `; ${s.rules.noteRequiredFor.map((state) => words[state]).join(', ')} need a note` : ''}</span></p>}
      <SessionClaims id={s.id} />
      {s.standingPlan && s.plan ? (preset === 'WHOLE_LIST' ? <TodosPanel plan={s.plan} /> : <AgentView taskId={s.plan.id} preset={preset} version={s.plan.version} />) : s.plan ? <p class="muted">The plan cleared when turn {s.turn} started; it shows again with the next update.</p> : <p class="muted">{s.finishedAt ? 'No plan written: the session finished without one.' : 'No plan written yet: the plan shows here once the agent writes one.'}</p>}
      {s.plan && <History taskId={s.plan.id} count={s.plan.history.totalCount} changes={changes} title="Updates" rowTitle={rowTitle} open />}
      {s.children.length > 0 && (
        <section aria-labelledby="helpers-heading">
          <h3 id="helpers-heading">Helpers</h3>
          {s.children.map((child) => (
            <div class="helper">
              <p><a href={`#/sessions/${child.id}`}>{sessionLabel(child)}</a> <span class="status-line">{child.statusLine}</span></p>
              {child.standingPlan && child.plan && <TodosPanel plan={child.plan} />}
            </div>
          ))}
        </section>
      )}
    </article>
    </StateWords.Provider>
  );
}

/** The plan above the message box: counts by state, expandable to every item with its note. */
function TodosPanel({ plan }: { plan: Plan }) {
  const p = plan.progress;
  const counts: [string, number][] = [['PENDING', p.pending], ['IN_PROGRESS', p.inProgress], ['DONE', p.done]];
  // The three states every plan uses; the others once the session puts an item in one.
  for (const [state, count] of [['BLOCKED', p.blocked], ['DROPPED', p.dropped], ['FAILED', p.failed]] as [string, number][]) {
    if (count > 0) counts.push([state, count]);
  }
  return (
    <details class="todos" aria-label="To-dos">
      <summary>
        <strong>To-dos</strong> <span class="muted">{p.total}</span>{' '}
        {counts.map(([state, count]) => <span class={`count-chip ${state}`}>{NAME[state]} {count}</span>)}
      </summary>
      <ol>
        {plan.items.nodes.map((item) => (
          <li class={item.state}>
            <span aria-label={NAME[item.state]} title={NAME[item.state]}>{GLYPH[item.state]}</span> <span class="muted small">#{item.id}</span> {item.text}
            {item.added && <span class="muted"> (added mid-session)</span>}
            {item.note && <div class="muted small">{item.note}</div>}
          </li>
        ))}
      </ol>
    </details>
  );
}
