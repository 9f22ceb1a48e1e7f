import { useEffect, useState } from 'preact/hooks';
import { ApiError, gql } from '../api';
import { onReconnect, useQuery, useSubscription } from '../live';
import { STATE_LABEL } from '../states';
import { Loading, useTitle } from '../widgets';

const TOP = '{ domains { path } }';
const LIVE = 'subscription { domainChanged { memoryId action } }';
const FIELDS = 'id number text state task { id title domain }';
/** One request asks each top-level domain's queue by an alias; the server takes at most 50 aliases a request. */
const TOPS_MAX = 40;
const PER_DOMAIN = 50;
/** A lease that runs out is no event: the queue is read again this often too. */
const REREAD_MS = 30_000;

interface ReadyItem { id: string; number: number; text: string; state: string; task: { id: string; title: string; domain: string } }

/** Every top-level domain's ready queue in one request, merged oldest task first, then list order (the order each queue hands out). */
async function readAll(tops: string[]): Promise<ReadyItem[]> {
  if (tops.length === 0) return [];
  const fields = tops.map((_, index) => `q${index}: ready(domain: $d${index}, first: ${PER_DOMAIN}) { ${FIELDS} }`);
  const query = `query(${tops.map((_, index) => `$d${index}: String!`).join(', ')}) { ${fields.join(' ')} }`;
  const data = await gql<Record<string, ReadyItem[]>>(query, Object.fromEntries(tops.map((top, index) => [`d${index}`, top])));
  return Object.values(data).flat().sort((a, b) => Number(a.task.id) - Number(b.task.id) || a.number - b.number);
}

/**
 * The Ready queue across every domain: open items no agent holds and nothing
 * unfinished blocks, oldest task first. Each domain's own queue (its Ready
 * tab) is the order agents there are handed work.
 */
export function ReadyAllView() {
  useTitle('Ready');
  const domains = useQuery<{ domains: { path: string }[] }>(TOP, {}, { query: LIVE, variables: {} });
  const tops = [...new Set((domains.data?.domains ?? []).map((domain) => domain.path.split('/')[0]))].sort();
  const shownTops = tops.slice(0, TOPS_MAX);
  const key = shownTops.join(',');
  const [queue, setQueue] = useState<{ key: string; items: ReadyItem[] | null; error: string | null }>({ key: '', items: null, error: null });
  const [tick, setTick] = useState(0);
  const reload = () => setTick((n) => n + 1);
  useEffect(() => {
    if (!domains.data) return;
    let current = true;
    readAll(shownTops).then(
      (items) => current && setQueue({ key, items, error: null }),
      (error: unknown) => current && setQueue((old) => ({ ...old, error: error instanceof ApiError ? error.message : String(error) })),
    );
    return () => { current = false; };
  }, [key, Boolean(domains.data), tick]);
  // Read again on any change, after a reconnect, and every REREAD_MS (an expired claim's item comes back).
  useSubscription(LIVE, {}, reload);
  useEffect(() => onReconnect(reload), []);
  useEffect(() => {
    const timer = setInterval(reload, REREAD_MS);
    return () => clearInterval(timer);
  }, []);
  const items = queue.items;
  return (
    <section aria-labelledby="ready-heading">
      <h2 id="ready-heading" tabIndex={-1}>Ready {items && <span class="count">({items.length})</span>}</h2>
      <p class="muted">Open items no agent holds and nothing unfinished blocks, across every domain: oldest task first, then list order. Live.</p>
      {!domains.data || !items ? <Loading error={domains.error ?? queue.error} /> : items.length === 0 ? <p class="muted">Nothing is ready: every open item is claimed, waits for another, or there is none.</p> : (
        <table class="tasks ready sticky-head">
          <thead><tr><th scope="col">Item</th><th scope="col">Task</th><th scope="col">Domain</th><th scope="col">State</th></tr></thead>
          <tbody>
            {items.map((item) => (
              <tr>
                <td><a href={`#/task/${item.task.id}?item=${item.id}`}>#{item.number} {item.text}</a></td>
                <td>{item.task.title}</td>
                <td><a href={`#/domains/${item.task.domain}?tab=ready`}>{item.task.domain}</a></td>
                <td><span class={`state ${item.state}`}>{STATE_LABEL[item.state]}</span></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {tops.length > TOPS_MAX && <p class="muted small">The queues of the first {TOPS_MAX} top-level domains are shown; open a domain's Ready tab for the others.</p>}
      {items && items.length > 0 && <p class="muted small">At most {PER_DOMAIN} items of each top-level domain.</p>}
    </section>
  );
}
