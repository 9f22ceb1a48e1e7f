import { useQuery } from '../live';
import { Loading, when } from '../widgets';
import { History } from './task';

const PLAN = `id version progress { pending inProgress done dropped blocked failed total }
  items(first: 200) { nodes { id number text state note added } }`;
const RECENT = `{ recentSessions(first: 30) { id createdAt finishedAt statusLine turn children { id statusLine finishedAt } } }`;
const SESSION = `query($id: ID!) { session(id: $id) {
  id createdAt finishedAt statusLine turn domains parent { id statusLine }
  standingPlan { id }
  plan { ${PLAN} history(first: 200) { totalCount nodes { id action at sessionId items { id text state } changes { itemId kind text from to } } } }
  children { id statusLine finishedAt createdAt standingPlan { id } plan { ${PLAN} } }
} }`;
const SESSIONS_LIVE = 'subscription { sessionChanged { sessionId action } }';
const SESSION_LIVE = 'subscription($id: ID) { sessionChanged(id: $id) { sessionId action } }';

const GLYPH: Record<string, string> = { PENDING: '○', IN_PROGRESS: '◐', DONE: '●', DROPPED: '⊘', BLOCKED: '■', FAILED: '✕' };
const NAME: Record<string, string> = { PENDING: 'Pending', IN_PROGRESS: 'In progress', DONE: 'Completed', DROPPED: 'Dropped', BLOCKED: 'Blocked', FAILED: 'Failed' };
/** What each plan change is called in the chat: a whole-list update is "Update to-do list". */
function rowTitle(event: { action: string }): string {
  if (event.action === 'PLAN_WRITTEN') return 'Update to-do list';
  if (event.action === 'PLAN_CLEARED') return 'Cleared the to-do list';
  return event.action.toLowerCase().replace(/_/g, ' ');
}

/** Recent sessions (working ones first) and, when one is chosen, its plan as the chat shows it. */
export function SessionsView({ id }: { id: string | null }) {
  const recent = useQuery(RECENT, {}, { query: SESSIONS_LIVE, variables: {} });
  return (
    <div class="split">
      <nav aria-label="Recent sessions" class="tree">
        <h2>Sessions</h2>
        {!recent.data ? <Loading error={recent.error} /> : recent.data.recentSessions.length === 0 ? <p class="muted">No sessions yet.</p> : (
          <ul>
            {recent.data.recentSessions.map((session: any) => (
              <li>
                <a href={`#/sessions/${session.id}`} aria-current={session.id === id ? 'page' : undefined}>{session.id.slice(0, 8)}</a>{' '}
                <span class={session.finishedAt ? 'muted' : 'active-dot'}>{session.finishedAt ? 'finished' : 'active'}</span>
                <div class="muted small">{session.statusLine}</div>
                {session.children.length > 0 && (
                  <ul class="helpers" aria-label="Helpers">
                    {session.children.map((child: any) => <li><a href={`#/sessions/${child.id}`}>↳ {child.id.slice(0, 8)}</a> <span class="muted small">{child.statusLine}</span></li>)}
                  </ul>
                )}
              </li>
            ))}
          </ul>
        )}
      </nav>
      <section class="main">{id ? <SessionDetail id={id} /> : <p class="muted">Choose a session.</p>}</section>
    </div>
  );
}

function SessionDetail({ id }: { id: string }) {
  const session = useQuery(SESSION, { id }, { query: SESSION_LIVE, variables: { id } });
  if (!session.data) return <Loading error={session.error} />;
  const s = session.data.session;
  if (!s) return <p role="alert">There is no session {id}.</p>;
  const updates = s.plan ? s.plan.history : null;
  return (
    <article aria-labelledby="session-title">
      {s.parent && <p class="crumbs">Helper of <a href={`#/sessions/${s.parent.id}`}>{s.parent.id.slice(0, 8)}</a></p>}
      <h2 id="session-title">Session {s.id.slice(0, 8)}</h2>
      <p class="status-line" aria-label="Status">{s.statusLine}</p>
      <p class="muted">started {when(s.createdAt)} · turn {s.turn}{s.finishedAt ? ` · finished ${when(s.finishedAt)}` : ''}{s.domains.length ? ` · domains: ${s.domains.join(', ')}` : ''}</p>
      {updates && (
        <History history={updates} title="Updates" rowTitle={rowTitle} />
      )}
      {s.standingPlan && s.plan ? <TodosPanel plan={s.plan} /> : s.plan ? <p class="muted">The plan cleared when turn {s.turn} started; it shows again with the next update.</p> : <p class="muted">No plan yet.</p>}
      {s.children.length > 0 && (
        <section aria-labelledby="helpers-heading">
          <h3 id="helpers-heading">Helpers</h3>
          {s.children.map((child: any) => (
            <div class="helper">
              <p><a href={`#/sessions/${child.id}`}>{child.id.slice(0, 8)}</a> <span class="status-line">{child.statusLine}</span></p>
              {child.standingPlan && child.plan && <TodosPanel plan={child.plan} />}
            </div>
          ))}
        </section>
      )}
    </article>
  );
}

/** The plan above the message box: counts by state, expandable to every item with its note. */
function TodosPanel({ plan }: { plan: any }) {
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
        {plan.items.nodes.map((item: any) => (
          <li class={item.state}>
            <span aria-label={NAME[item.state]} title={NAME[item.state]}>{GLYPH[item.state]}</span> {item.text}
            {item.added && <span class="muted"> (added)</span>}
            {item.note && <div class="muted small">{item.note}</div>}
          </li>
        ))}
      </ol>
    </details>
  );
}
