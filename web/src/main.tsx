import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { canWrite, checkAccess, needToken, saveToken, token } from './api';
import { liveStatus } from './live';
import { useSignal } from './signal';
import './styles.css';
import { DomainsView } from './views/domains';
import { RemindersView } from './views/reminders';
import { SessionsView } from './views/sessions';
import { TaskView } from './views/task';

interface Route { view: 'domains' | 'task' | 'sessions' | 'reminders'; id: string | null; params: URLSearchParams }

/** Hash routes, so the server serves one page: #/domains/<path>, #/task/<id>, #/sessions/<id>, #/maintenance/reminders. */
function parse(hash: string): Route {
  const [path, query] = hash.replace(/^#\/?/, '').split('?');
  const params = new URLSearchParams(query ?? '');
  const [head, ...rest] = path.split('/');
  const id = rest.length ? decodeURIComponent(rest.join('/')) : null;
  if (head === 'task') return { view: 'task', id, params };
  if (head === 'sessions') return { view: 'sessions', id, params };
  if (head === 'maintenance') return { view: 'reminders', id: null, params };
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

function TokenForm() {
  const [value, setValue] = useState('');
  const had = Boolean(token.get());
  return (
    <div class="token-overlay" role="dialog" aria-modal="true" aria-labelledby="token-heading">
      <form onSubmit={(event) => { event.preventDefault(); if (value.trim()) { saveToken(value.trim()); void checkAccess(); } }}>
        <h2 id="token-heading">Sign in</h2>
        <p>{had ? 'The server did not accept the saved token.' : 'This server needs a bearer token.'} It is kept in this browser.</p>
        <label><span>Bearer token</span><input type="password" autoComplete="current-password" value={value} onInput={(event) => setValue(event.currentTarget.value)} ref={(el) => el?.focus()} /></label>
        <button type="submit">Use this token</button>
      </form>
    </div>
  );
}

function App() {
  const route = useRoute();
  const asking = useSignal(needToken);
  const live = useSignal(liveStatus);
  const writable = useSignal(canWrite);
  useEffect(() => void checkAccess(), []);
  const tab = (view: Route['view'], href: string, label: string) => (
    <a href={href} aria-current={route.view === view || (view === 'domains' && route.view === 'task') ? 'page' : undefined}>{label}</a>
  );
  return (
    <>
      <header>
        <h1><a href="#/domains">taskbase</a></h1>
        <nav aria-label="Views">
          {tab('domains', '#/domains', 'Domains')}
          {tab('sessions', '#/sessions', 'Sessions')}
          {tab('reminders', '#/maintenance/reminders', 'Maintenance → Reminders')}
        </nav>
        <span class={`live ${live}`} role="status" aria-live="polite" data-live={live}>{live === 'live' ? '● Live' : live === 'connecting' ? '○ Connecting…' : '○ Offline — reconnecting'}</span>
        {!writable && <span class="badge" title="This token may only read">read-only</span>}
      </header>
      <main>
        {route.view === 'task' && route.id ? <TaskView id={route.id} focusItem={route.params.get('item')} /> :
          route.view === 'sessions' ? <SessionsView id={route.id} /> :
          route.view === 'reminders' ? <RemindersView /> :
          <DomainsView path={route.id} archived={route.params.get('archived') === '1'} />}
      </main>
      {asking && <TokenForm />}
    </>
  );
}

render(<App />, document.getElementById('app')!);
