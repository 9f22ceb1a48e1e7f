import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { canWrite, changingToken, checkAccess, forgetToken, needToken, saveToken, token } from './api';
import { useFocusTrap } from './focus-trap';
import { liveStatus } from './live';
import { Shortcuts } from './shortcuts';
import { useSignal } from './signal';
import './styles.css';
import { ActivityTab, ActivityView } from './views/activity';
import { HomeView } from './views/first-run';
import { ReadyAllView } from './views/ready-all';
import { AttentionView } from './views/attention';
import { DomainsView } from './views/domains';
import { RemindersView } from './views/reminders';
import { SearchView } from './views/search';
import { SessionsView } from './views/sessions';
import { TaskView } from './views/task';
import { readTaskEarly } from './task-data';
import { WebhooksView } from './views/webhooks';
import { NewTaskView } from './views/new-task';
import { UndoToast } from './undo';

interface Route { view: 'agents' | 'activity' | 'ready' | 'domains' | 'task' | 'sessions' | 'reminders' | 'webhooks' | 'search' | 'attention' | 'new-task'; id: string | null; params: URLSearchParams }

/** Hash routes, so the server serves one page and every view survives a reload: #/ and #/agents (the home page), #/activity?domain=&agent=&after= (what changed), #/domains/<path>, #/task/<id>, #/sessions/<id>, #/search?q=, #/maintenance/reminders, #/maintenance/webhooks. */
function parse(hash: string): Route {
  const [path, query] = hash.replace(/^#\/?/, '').split('?');
  const params = new URLSearchParams(query ?? '');
  const [head, ...rest] = path.split('/');
  const id = rest.length ? decodeURIComponent(rest.join('/')) : null;
  // The home page of a person steering agents: who is doing what now.
  if (head === '' || head === 'agents') return { view: 'agents', id: null, params };
  if (head === 'activity') return { view: 'activity', id: null, params };
  if (head === 'ready') return { view: 'ready', id: null, params };
  if (head === 'task') return { view: 'task', id, params };
  if (head === 'sessions') return { view: 'sessions', id, params };
  if (head === 'maintenance') return { view: rest[0] === 'webhooks' ? 'webhooks' : 'reminders', id: null, params };
  if (head === 'search') return { view: 'search', id: null, params };
  if (head === 'attention') return { view: 'attention', id: null, params };
  if (head === 'new-task') return { view: 'new-task', id: null, params };
  return { view: 'domains', id, params };
}

function useRoute(): Route {
  const [route, setRoute] = useState(parse(location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parse(location.hash));
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

function TokenForm({ changing }: { changing: boolean }) {
  const [value, setValue] = useState('');
  const had = Boolean(token.get());
  // No Escape: the page cannot be used without a token the server takes.
  const ref = useRef<HTMLDivElement>(null);
  useFocusTrap(ref);
  return (
    <div class="token-overlay" role="dialog" aria-modal="true" aria-labelledby="token-heading" ref={ref}
      onKeyDown={(event) => { if (changing && event.key === 'Escape') changingToken.set(false); }}>
      <form onSubmit={(event) => { event.preventDefault(); if (value.trim()) { saveToken(value.trim()); void checkAccess(); } }}>
        <h2 id="token-heading">Sign in</h2>
        <p>{changing ? 'Another token for this server (a writer’s, say, in place of a read-only one).' : had ? 'The server did not accept the saved token.' : 'This server needs a bearer token.'} It is kept in this browser.</p>
        <label><span>Bearer token</span><input type="password" autoComplete="current-password" value={value} onInput={(event) => setValue(event.currentTarget.value)} ref={(el) => el?.focus()} /></label>
        <button type="submit">Use this token</button>
        {/* No cancel when the page has no working token: it cannot be used without one. */}
        {changing && <> <button type="button" onClick={() => changingToken.set(false)}>Cancel</button></>}
      </form>
    </div>
  );
}

const LIVE_TEXT = { live: '● Live', connecting: '○ Connecting…', offline: '○ Offline — reconnecting', refused: '○ Token refused — not live' } as const;

/** The search box in the header: results open in the main pane (#/search?q=…), so they have room for snippets. */
function HeaderSearch({ current }: { current: string }) {
  const [query, setQuery] = useState(current);
  useEffect(() => setQuery(current), [current]);
  return (
    <form role="search" class="header-search" onSubmit={(event) => { event.preventDefault(); location.hash = `#/search?q=${encodeURIComponent(query.trim())}`; }}>
      <label><span class="sr">Search the knowledge base</span>
        <input type="search" placeholder="Search notes and tasks…" value={query} onInput={(event) => setQuery(event.currentTarget.value)} /></label>
      <button type="submit">Search</button>
    </form>
  );
}

function App() {
  const route = useRoute();
  const asking = useSignal(needToken);
  const live = useSignal(liveStatus);
  const writable = useSignal(canWrite);
  const changing = useSignal(changingToken);
  const signedIn = Boolean(useSignal(token));
  useEffect(() => void checkAccess(), []);
  // A move to another view puts focus on its heading, so a keyboard or screen-reader user hears where they are (the skip link's target too).
  const first = useRef(true);
  useEffect(() => {
    if (first.current) { first.current = false; return; }
    const timer = setTimeout(() => {
      // Unless the person already acted in the new view (opened a menu, typed in a field): focus is theirs then.
      if (document.activeElement?.closest('[role="menu"], input, textarea, select')) return;
      (document.querySelector('main h2') as HTMLElement | null)?.focus({ preventScroll: !!route.params.get('item') });
    }, 300);
    return () => clearTimeout(timer);
  }, [route.view, route.id]);
  const tab = (view: Route['view'], href: string, label: string) => (
    <a href={href} aria-current={route.view === view || (view === 'domains' && route.view === 'task') || (view === 'reminders' && route.view === 'webhooks') ? 'page' : undefined}>{label}</a>
  );
  return (
    <>
      <a class="skip" href="#main" onClick={(event) => { event.preventDefault(); document.getElementById('main')?.focus(); }}>Skip to content</a>
      <header>
        <h1><a href="#/">taskbase</a></h1>
        <nav aria-label="Views">
          {tab('agents', '#/agents', 'Agents')}
          <ActivityTab current={route.view === 'activity'} />
          {tab('domains', '#/domains', 'Domains')}
          {tab('ready', '#/ready', 'Ready queue')}
          {tab('attention', '#/attention', 'Needs attention')}
          {tab('sessions', '#/sessions', 'Sessions')}
          {tab('reminders', '#/maintenance/reminders', 'Maintenance')}
          {writable && tab('new-task', `#/new-task${route.view === 'domains' && route.id ? `?domain=${encodeURIComponent(route.id)}` : ''}`, '+ New task')}
        </nav>
        <HeaderSearch current={route.view === 'search' ? route.params.get('q') ?? '' : ''} />
        <span class="live-badge" role="status" aria-live="polite" data-live={live}>{LIVE_TEXT[live]}</span>
        {!writable && <span class="badge" title="This token may only read">read-only</span>}
        {signedIn && <span class="token-controls"><button type="button" class="link small" onClick={() => changingToken.set(true)}>Change token</button>{' '}
          <button type="button" class="link small" onClick={forgetToken}>Sign out</button></span>}
      </header>
      <main id="main" tabIndex={-1}>
        {route.view === 'agents' ? <HomeView /> :
          route.view === 'activity' ? <ActivityView params={route.params} /> :
          route.view === 'ready' ? <ReadyAllView /> :
          route.view === 'task' && route.id ? <TaskView id={route.id} focusItem={route.params.get('item')} /> :
          route.view === 'sessions' ? <SessionsView id={route.id} params={route.params} /> :
          route.view === 'reminders' ? <RemindersView /> :
          route.view === 'webhooks' ? <WebhooksView /> :
          route.view === 'attention' ? <AttentionView /> :
          route.view === 'search' ? <SearchView query={route.params.get('q') ?? ''} /> :
          route.view === 'new-task' ? <NewTaskView domain={route.params.get('domain') ?? ''} /> :
          <DomainsView path={route.id} archived={route.params.get('archived') === '1'} note={route.params.get('note')} ready={route.params.get('tab') === 'ready'} params={route.params} />}
      </main>
      <UndoToast />
      {(asking || changing) && <TokenForm changing={changing && !asking} />}
      <Shortcuts />
    </>
  );
}

// A task's address: its first reads leave now, while the page renders its frame.
const opening = parse(location.hash);
if (opening.view === 'task' && opening.id) readTaskEarly(opening.id);
render(<App />, document.getElementById('app')!);
