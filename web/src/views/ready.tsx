import { useEffect } from 'preact/hooks';
import { useQuery } from '../live';
import { STATE_LABEL } from '../states';
import { Loading, useTitle } from '../widgets';

const READY = `query($domain: String!) { ready(domain: $domain, first: 200) {
  id number text state claim { expiresAt } task { id title domain } } }`;
/** An item of READY. */
interface ReadyItem { id: string; number: number | null; text: string; state: string; claim: { expiresAt: string } | null; task: { id: string; title: string; domain: string | null } }
const DOMAIN_LIVE = 'subscription($under: String) { domainChanged(under: $under) { memoryId action } }';
/** A lease that runs out is no event: the queue is also read again this often, so an expired claim's item comes back. */
const REREAD_MS = 30_000;

/** The domain's tabs: its tasks and notes, or its ready queue (#/domains/<path>?tab=ready, so either can be linked to). */
export function DomainTabs({ path, ready }: { path: string; ready: boolean }) {
  return (
    <nav class="tabs" aria-label={`${path}: views`}>
      <a href={`#/domains/${path}`} aria-current={ready ? undefined : 'page'}>Tasks and notes</a>
      <a href={`#/domains/${path}?tab=ready`} aria-current={ready ? 'page' : undefined}>Ready</a>
    </nav>
  );
}

/**
 * What agents take next in this domain (and those under it): the ready
 * queue in the order claimNext and task_next hand it out — open, unclaimed
 * items whose dependencies are settled, oldest task first, then list order.
 * Read again on every change under the domain (a claim takes an item off).
 */
export function ReadyView({ path }: { path: string }) {
  const queue = useQuery<{ ready: ReadyItem[] }>(READY, { domain: path }, { query: DOMAIN_LIVE, variables: { under: path } });
  useTitle(`${path} · ready`);
  useEffect(() => {
    const timer = setInterval(queue.reload, REREAD_MS);
    return () => clearInterval(timer);
  }, [path]);
  const items = queue.data?.ready;
  return (
    <>
      <h2 tabIndex={-1}>{path}: ready</h2>
      <p class="muted">Open items no agent holds and nothing unfinished blocks, in the order agents are handed them (task_next, claimNext): oldest task first, then list order. Live.</p>
      {!items ? <Loading error={queue.error} /> : items.length === 0 ? <p class="muted">Nothing is ready here: every open item is claimed, or waits for another.</p> : (
        <table class="tasks ready">
          <thead><tr><th scope="col">Next</th><th scope="col">Item</th><th scope="col">Task</th><th scope="col">State</th><th scope="col">Claim</th></tr></thead>
          <tbody>
            {items.map((item, index) => (
              <tr>
                <td>{index + 1}</td>
                <td><a href={`#/task/${item.task.id}?item=${item.id}`}>#{item.number} {item.text}</a></td>
                <td>{item.task.title}{item.task.domain !== path && <span class="muted"> · {item.task.domain}</span>}</td>
                <td><span class={`state ${item.state}`}>{STATE_LABEL[item.state]}</span></td>
                <td>{item.claim ? 'claimed' : index === 0 ? 'free — handed out next' : 'free'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {items && items.length === 200 && <p class="muted small">The first 200 ready items are shown.</p>}
    </>
  );
}
