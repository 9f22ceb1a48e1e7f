import { useState } from 'preact/hooks';
import { useQuery } from '../live';
import { stuckCount } from '../states';
import { Loading, useTitle, when } from '../widgets';
import { sessionLabel } from '../session-name';
import { StuckInbox } from './stuck-inbox';

const TOP = '{ domains { path openTasks } }';
const OPEN_TASKS = (paths: string[]) => `{ ${paths.map((path, index) => `d${index}: mustRead(domain: ${JSON.stringify(path)}) { id title domain updatedAt state progress { done total blocked failed pending inProgress } }`).join(' ')} }`;
const FINISHED = `{ sessions(first: 50, finished: true) { nodes { id name finishedAt lastActiveAt statusLine plan { id progress { pending inProgress blocked failed total } } } } }`;
const LIVE = 'subscription { domainChanged { memoryId action } }';
interface OpenTask {
  id: string; title: string; domain: string; updatedAt: string; state: string;
  progress: { done: number; total: number; blocked: number; failed: number; pending: number; inProgress: number };
}
/** OPEN_TASKS answers d0, d1, … (one per path); with no path it asks `{ access }`, whose answer no d-key reads. */
type OpenTasks = Partial<Record<string, OpenTask[]>>;
interface FinishedSession {
  id: string; name: string | null; finishedAt: string; lastActiveAt: string; statusLine: string;
  plan: { id: string; progress: { pending: number; inProgress: number; blocked: number; failed: number; total: number } } | null;
}

/** "Recently" for open tasks an agent touched: the last day. */
const RECENT_MS = 24 * 60 * 60 * 1000;

/**
 * What needs a person: every stuck item (the stuckItems inbox, tasks and
 * plans alike, with its true count), open tasks changed in the last day, and
 * finished sessions whose plans left items open. The recent tasks are read
 * from the open tasks of each top-level domain (mustRead, newest first).
 */
export function AttentionView() {
  useTitle('Needs attention');
  const top = useQuery<{ domains: { path: string; openTasks: number }[] }>(TOP, {});
  const paths = (top.data?.domains ?? []).filter((domain) => !domain.path.includes('/') && domain.openTasks > 0).map((domain) => domain.path).slice(0, 20);
  const open = useQuery<OpenTasks>(paths.length ? OPEN_TASKS(paths) : '{ access }', {}, { query: LIVE, variables: {} });
  const finished = useQuery<{ sessions: { nodes: FinishedSession[] } }>(FINISHED, {});
  const [kind, setKind] = useState<'all' | 'stuck' | 'recent' | 'sessions'>('all');
  const [domain, setDomain] = useState('');
  if (!top.data || !open.data || !finished.data) return <section class="main"><h2>Needs attention</h2><Loading error={top.error ?? open.error ?? finished.error} /></section>;
  const answered = open.data;
  const tasks = paths.flatMap((_, index) => answered[`d${index}`] ?? []).filter((task) => !domain || task.domain.startsWith(domain));
  const now = Date.now();
  const recent = tasks.filter((task) => stuckCount(task.progress) === 0 && now - new Date(task.updatedAt).getTime() < RECENT_MS);
  const order = (list: OpenTask[]) => [...list].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  const leftOpen = finished.data.sessions.nodes.filter((session) => session.plan && session.plan.progress.pending + session.plan.progress.inProgress + session.plan.progress.blocked + session.plan.progress.failed > 0);
  const row = (task: OpenTask) => (
    <tr>
      <td><a href={`#/task/${task.id}`}>{task.title}</a> <span class="muted">· {task.domain}</span></td>
      <td>{stuckCount(task.progress) > 0 ? <span class="state stuck">stuck · {stuckCount(task.progress)}</span> : <span class={`state ${task.state}`}>{task.state.toLowerCase()}</span>}</td>
      <td>{task.progress.done}/{task.progress.total}</td>
      <td class="nowrap"><time dateTime={task.updatedAt}>{when(task.updatedAt)}</time></td>
    </tr>
  );
  const table = (list: OpenTask[], caption: string) => (
    <table class="tasks"><caption class="sr">{caption}</caption>
      <thead><tr><th scope="col">Task</th><th scope="col">State</th><th scope="col">Done</th><th scope="col">Updated</th></tr></thead>
      <tbody>{order(list).map(row)}</tbody>
    </table>
  );
  return (
    <section class="main" aria-labelledby="attention-heading">
      <h2 id="attention-heading" tabIndex={-1}>Needs attention</h2>
      <div class="toolbar filters-row">
        <label><span>Show</span><select value={kind} onChange={(event) => setKind(event.currentTarget.value as typeof kind)}>
          <option value="all">Everything</option><option value="stuck">Stuck items</option><option value="recent">Recently changed open tasks</option><option value="sessions">Finished sessions that left items open</option>
        </select></label>
        <label><span>Domain</span><select value={domain} onChange={(event) => setDomain(event.currentTarget.value)}>
          <option value="">All domains</option>{paths.map((path: string) => <option value={path}>{path}</option>)}
        </select></label>
      </div>
      {(kind === 'all' || kind === 'stuck') && <StuckInbox domain={domain} />}
      {(kind === 'all' || kind === 'recent') && <><h3>Open tasks changed in the last day <span class="count">({recent.length})</span></h3>{recent.length ? table(recent, 'Open tasks changed in the last day') : <p class="muted">No open task changed in the last day.</p>}</>}
      {(kind === 'all' || kind === 'sessions') && (
        <>
          <h3>Finished sessions that left items open <span class="count">({leftOpen.length})</span></h3>
          {leftOpen.length === 0 ? <p class="muted">Every finished session settled its plan.</p> : (
            <ul>{leftOpen.map((session) => (
              <li><a href={`#/sessions/${session.id}`} title={session.id}>{sessionLabel(session)}</a> <span class="small">{session.statusLine}</span>{' '}
                <span class="muted small">· finished {when(session.finishedAt)}</span></li>
            ))}</ul>
          )}
        </>
      )}
    </section>
  );
}
