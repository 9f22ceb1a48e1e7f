import { useEffect, useRef, useState } from 'preact/hooks';
import { gql } from '../api';
import { useQuery, useSubscription } from '../live';
import { sessionLabel } from '../session-name';
import { lastLooked, markAllSeen, NewMark, useUnread } from '../since-looked';
import { useSignal } from '../signal';
import { STATE_LABEL } from '../states';
import { Loading, useTitle, when } from '../widgets';
import { describe, type ItemChange } from './history';

const NAMED = 'id name';
const CHANGE = `id at action itemId domain madeBy madeBySession { ${NAMED} } session { ${NAMED} } task { id title domain } itemChanges { kind text from to session { ${NAMED} } }`;
const ACTIVITY = `query($first: Int!, $after: String, $domain: String, $madeBy: ID, $byPerson: Boolean) {
  activity(first: $first, after: $after, domain: $domain, madeBy: $madeBy, byPerson: $byPerson) { pageInfo { hasNextPage endCursor } nodes { ${CHANGE} } } }`;
const AGENTS = `{ sessions(first: 100) { nodes { ${NAMED} finishedAt } } }`;
const DOMAINS_LIVE = 'subscription { domainChanged { memoryId action } }';
const SESSIONS_LIVE = 'subscription { sessionChanged { sessionId action } }';
const PAGE = 50;

interface Named { id: string; name: string | null }
/** A change as CHANGE reads it. */
interface Change {
  id: string; at: string; action: string; itemId: string | null; domain: string | null; madeBy: string | null; madeBySession: Named | null; session: Named | null;
  task: { id: string; title: string; domain: string | null } | null; itemChanges: Omit<ItemChange, 'itemId'>[];
}
interface ActivityAnswer { activity: { pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: Change[] } }
interface AgentsAnswer { sessions: { nodes: (Named & { finishedAt: string | null })[] } }
/** How far back the header's "new" count looks: past this many, it says "50+". */
const NEW_COUNT_MAX = 50;
const COUNT_EVERY_MS = 2000;

/** What each action did, as a person reads it after the agent's name. */
const DID: Record<string, string> = {
  TASK_CREATED: 'created the task', TASK_EDITED: 'edited the task', ITEM_STATE: 'changed a state', ITEMS_ADDED: 'added items', ITEM_RENAMED: 'renamed an item',
  ITEM_DELETED: 'deleted an item', ITEM_MOVED: 'moved an item', ITEM_LINKED: 'linked an item', ITEM_RESTORED: 'restored an item', ITEM_WAITS: 'changed what an item waits for',
  COMMENT_ADDED: 'commented', NOTE_ADDED: 'added a note', NOTE_EDITED: 'edited a note', NOTE_DELETED: 'deleted a note',
  PLAN_WRITTEN: 'wrote the plan', PLAN_CLEARED: 'cleared the plan', ITEM_CLAIMED: 'claimed an item', CLAIM_RELEASED: 'released a claim', CLAIM_OVERRIDDEN: 'changed an item past a claim',
  NOTE_CREATED: 'created a note', NOTE_ARCHIVED: 'archived a note', SESSION_STARTED: 'started', SESSION_FINISHED: 'finished', RULES_CHANGED: 'changed the plan’s rules',
  SETTINGS_CHANGED: 'changed the settings',
};

interface Filters { domain: string; agent: string; after: string | null }

/** The view's address: its filters and page, so a view can be shared and survives a reload. */
function hrefOf(filters: Filters): string {
  const params = new URLSearchParams();
  if (filters.domain) params.set('domain', filters.domain);
  if (filters.agent) params.set('agent', filters.agent);
  if (filters.after) params.set('after', filters.after);
  const query = params.toString();
  return `#/activity${query ? `?${query}` : ''}`;
}

function variablesOf(filters: Filters) {
  return {
    first: PAGE, after: filters.after, domain: filters.domain || null,
    madeBy: filters.agent && filters.agent !== 'person' ? filters.agent : null, byPerson: filters.agent === 'person' ? true : null,
  };
}

/** Who did it, by name. */
function who(change: Change): string {
  return change.madeBySession ? sessionLabel(change.madeBySession) : change.madeBy ? sessionLabel({ id: change.madeBy }) : 'A person';
}

/** What a change was about: its task (a plan by its session's name), else the session it concerns. */
function groupOf(change: Change): { key: string; title: string; href: string | null; domain: string | null } {
  if (change.task) return { key: `task:${change.task.id}`, title: change.task.title, href: `#/task/${change.task.id}`, domain: change.task.domain };
  if (change.session) return { key: `session:${change.session.id}`, title: `Session ${sessionLabel(change.session)}`, href: `#/sessions/${change.session.id}`, domain: null };
  return { key: change.domain ? `domain:${change.domain}` : 'other', title: change.domain ? `A note in ${change.domain}` : 'Settings', href: change.domain ? `#/domains/${change.domain}` : null, domain: change.domain };
}

/** Consecutive changes of one task (or session) in one group, newest first, as a stream reads them. */
function grouped(changes: Change[]): { head: ReturnType<typeof groupOf>; changes: Change[] }[] {
  const groups: { head: ReturnType<typeof groupOf>; changes: Change[] }[] = [];
  for (const change of changes) {
    const head = groupOf(change);
    const last = groups.at(-1);
    if (last && last.head.key === head.key) last.changes.push(change);
    else groups.push({ head, changes: [change] });
  }
  return groups;
}

/**
 * What changed, newest first, from the change log: who did what to which
 * item, from → to, by name, grouped by task; filtered by domain and by agent;
 * a page at a time by keyset (Older / Newest), its filters and page in the
 * address. What changed since this browser last looked is marked, until
 * "Mark all seen". Live on the newest page.
 */
export function ActivityView({ params }: { params: URLSearchParams }) {
  useTitle('Activity');
  const filters: Filters = { domain: params.get('domain') ?? '', agent: params.get('agent') ?? '', after: params.get('after') };
  const read = useQuery<ActivityAnswer>(ACTIVITY, variablesOf(filters), filters.after ? undefined : { query: DOMAINS_LIVE, variables: {} });
  useSubscription(filters.after ? null : SESSIONS_LIVE, {}, () => read.reload());
  const agents = useQuery<AgentsAnswer>(AGENTS, {});
  const unread = useUnread();
  const [domain, setDomain] = useState(filters.domain);
  useEffect(() => setDomain(filters.domain), [filters.domain]);
  const data = read.data;
  const changes = data?.activity.nodes ?? [];
  const fresh = changes.filter((change) => unread(change.at)).length;
  const go = (next: Partial<Filters>) => { location.hash = hrefOf({ ...filters, after: null, ...next }); };
  return (
    <section class="activity" aria-labelledby="activity-heading">
      <h2 id="activity-heading" tabIndex={-1}>Activity {data && !filters.after && <span class="count">({fresh === PAGE ? `${PAGE}+` : fresh} new since you last looked)</span>}</h2>
      <form class="filters" role="search" aria-label="Filter the activity" onSubmit={(event) => { event.preventDefault(); go({ domain: domain.trim() }); }}>
        <label><span>Domain</span><input value={domain} placeholder="every domain" onInput={(event) => setDomain(event.currentTarget.value)} /></label>
        <button type="submit">Show</button>
        <label><span>Agent</span>
          <select value={filters.agent} onChange={(event) => go({ agent: event.currentTarget.value })}>
            <option value="">Anyone</option>
            <option value="person">A person (dashboard)</option>
            {(agents.data?.sessions.nodes ?? []).map((session) => <option value={session.id}>{sessionLabel(session)}{session.finishedAt ? ' (finished)' : ''}</option>)}
            {filters.agent && filters.agent !== 'person' && !(agents.data?.sessions.nodes ?? []).some((s) => s.id === filters.agent) && <option value={filters.agent}>the chosen agent</option>}
          </select></label>
        <button type="button" onClick={markAllSeen}>Mark all seen</button>
      </form>
      {!data ? <Loading error={read.error} /> : changes.length === 0 ? <p class="muted">No change {filters.domain || filters.agent ? 'matches these filters' : filters.after ? 'before these' : 'recorded yet'}.</p> : (
        <ol class="activity-groups">
          {grouped(changes).map(({ head, changes: rows }) => (
            <li class="activity-group">
              <h3>{head.href ? <a href={head.href}>{head.title}</a> : head.title}{head.domain && <span class="muted small"> · {head.domain}</span>}
                {rows.some((change) => unread(change.at)) && <> <NewMark /></>}</h3>
              <ul class="activity-rows">
                {rows.map((change) => <ActivityRow change={change} unread={unread(change.at)} />)}
              </ul>
            </li>
          ))}
        </ol>
      )}
      {data && (filters.after || data.activity.pageInfo.hasNextPage) && (
        <nav class="pager" aria-label="Page through the activity">
          <a href={hrefOf({ ...filters, after: null })} aria-disabled={!filters.after}>⇤ Newest</a>
          {data.activity.pageInfo.hasNextPage && <a href={hrefOf({ ...filters, after: data.activity.pageInfo.endCursor })}>Older →</a>}
        </nav>
      )}
    </section>
  );
}

function ActivityRow({ change, unread }: { change: Change; unread: boolean }) {
  const what = change.itemChanges.map((item) => describe(item, STATE_LABEL));
  return (
    <li class={unread ? 'unread-row' : undefined} data-action={change.action}>
      {unread && <><NewMark /> </>}
      <strong>{who(change)}</strong> {DID[change.action] ?? change.action.toLowerCase().replace(/_/g, ' ')}
      {what.length === 1 ? <>: <span class="what">{what[0]}</span></> : what.length > 1 ? <>: <span class="what">{what.slice(0, 3).join('; ')}{what.length > 3 ? `; and ${what.length - 3} more` : ''}</span></> : null}
      {' '}<time class="muted small" dateTime={change.at} title={when(change.at)}>{when(change.at)}</time>
    </li>
  );
}

/**
 * The navigation's Activity link with what is new since this browser last
 * looked: the newest page's changes after that time, counted live.
 */
export function ActivityTab({ current }: { current: boolean }) {
  const since = useSignal(lastLooked);
  const [count, setCount] = useState<number | null>(null);
  const [tick, setTick] = useState(0);
  // At most one count every 2 s however busy the agents are: a badge need not keep up with 100 changes a second.
  const pending = useRef<number | undefined>(undefined);
  const bump = () => {
    if (pending.current !== undefined) return;
    pending.current = window.setTimeout(() => { pending.current = undefined; setTick((n) => n + 1); }, COUNT_EVERY_MS);
  };
  useEffect(() => () => clearTimeout(pending.current), []);
  useSubscription(DOMAINS_LIVE, {}, bump);
  useSubscription(SESSIONS_LIVE, {}, bump);
  useEffect(() => {
    let current = true;
    gql<{ activity: { nodes: { at: string }[] } }>(`{ activity(first: ${NEW_COUNT_MAX}) { nodes { at } } }`).then(
      (data) => current && setCount(data.activity.nodes.filter((change) => Date.parse(change.at) > since).length),
      () => undefined,
    );
    return () => { current = false; };
  }, [since, tick]);
  const label = count ? `${count === NEW_COUNT_MAX ? `${NEW_COUNT_MAX}+` : count} new` : null;
  return (
    <a href="#/activity" aria-current={current ? 'page' : undefined}>Activity{label && <> <span class="unread-count" aria-label={`, ${label} since you last looked`}>{label}</span></>}</a>
  );
}
