import { useEffect, useState } from 'preact/hooks';
import { canWrite, gql } from '../api';
import { ItemCoordination, type Claim } from '../claims';
import { useQuery } from '../live';
import { sessionLabel } from '../session-name';
import { NewMark, useUnread } from '../since-looked';
import { useSignal } from '../signal';
import { SAYS_WHY, StateMenu } from '../state-menu';
import { STATES, STATE_LABEL } from '../states';
import { Loading, Refusal, useAction, when } from '../widgets';

const SESSION = 'id name statusLine';
const STUCK = `query($domain: String, $first: Int) { stuckItems(domain: $domain, first: $first) {
  totalCount pageInfo { hasNextPage }
  nodes { since setByKnown setBy { ${SESSION} }
    item { id text state note ready blocks { id } claim { claimedAt expiresAt session { ${SESSION} } } }
    task { id title domain session { ${SESSION} finishedAt } } } } }`;
const LIVE = 'subscription { domainChanged { memoryId action } }';
const UPDATE_ITEM = 'mutation($input: UpdateItemInput!) { updateItem(input: $input) { id state } }';
/** Rows read at first; "Show more" reads this many more each time (the query's page size is at most 200). */
const PAGE = 50;

interface Session { id: string; name: string | null; statusLine: string }
interface StuckRow {
  since: string;
  setByKnown: boolean;
  setBy: Session | null;
  item: { id: string; text: string; state: string; note: string | null; ready: boolean; blocks: { id: string }[]; claim: Claim | null };
  task: { id: string; title: string; domain: string | null; session: (Session & { finishedAt: string | null }) | null };
}

/** "3 min ago", "2 h ago", "4 days ago": how long something has been as it is. */
export function ago(iso: string, now = Date.now()): string {
  const minutes = Math.max(0, Math.round((now - Date.parse(iso)) / 60_000));
  if (minutes < 1) return 'just now';
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.round(hours / 24)} days ago`;
}

/**
 * Every stuck item in one list (the stuckItems query): of knowledge-base
 * tasks and of agents' plans, running or finished, with no cap and its true
 * count. Each row names the item and why it is stuck, who set it and since
 * when, who holds it now, and lets a person unblock it (set a state) or
 * release its claim where it stands.
 */
export function StuckInbox({ domain }: { domain: string }) {
  const [shown, setShown] = useState(PAGE);
  const stuck = useQuery<{ stuckItems: { totalCount: number; pageInfo: { hasNextPage: boolean }; nodes: StuckRow[] } }>(
    STUCK, { domain: domain || null, first: Math.min(shown, 200) }, { query: LIVE, variables: {} });
  const unread = useUnread();
  if (!stuck.data) return <><h3>Stuck items</h3><Loading error={stuck.error} /></>;
  const { totalCount, nodes, pageInfo } = stuck.data.stuckItems;
  // Newest first: the rows stuck since this browser last looked are at the top.
  const fresh = nodes.filter((row) => unread(row.since)).length;
  return (
    <>
      <h3>Stuck items <span class="count">({totalCount})</span></h3>
      {fresh > 0 && <p class="small"><NewMark label={`${fresh} stuck since you last looked`} /></p>}
      {nodes.length === 0 ? <p class="muted">Nothing is blocked or failed.</p> : (
        <table class="tasks stuck-inbox"><caption class="sr">Stuck items, newest first</caption>
          <thead><tr><th scope="col">Item</th><th scope="col">State and reason</th><th scope="col">Set by</th><th scope="col">Held by</th></tr></thead>
          <tbody>{nodes.map((row) => <StuckItemRow row={row} onChanged={stuck.reload} />)}</tbody>
        </table>
      )}
      {pageInfo.hasNextPage && shown < 200 && (
        <p><button type="button" onClick={() => setShown(Math.min(shown + PAGE, 200))}>Show more stuck items ({nodes.length} of {totalCount} shown)</button></p>
      )}
      {pageInfo.hasNextPage && shown >= 200 && <p class="muted">The 200 newest are shown; narrow by domain to see the rest.</p>}
    </>
  );
}

function StuckItemRow({ row, onChanged }: { row: StuckRow; onChanged(): void }) {
  const unread = useUnread()(row.since);
  const writable = useSignal(canWrite);
  const [run, error, busy] = useAction();
  // A state waiting on its reason, asked in the row before anything is sent: Blocked, Failed and Dropped ask (the row says why),
  // "With a reason…" asks for any state, picked in the form. The reason may be left empty; the rules of a plan that need one refuse in words.
  const [asking, setAsking] = useState<{ state: string; pick: boolean } | null>(null);
  const [reason, setReason] = useState('');
  const { item, task } = row;
  const where = task.session
    ? <a href={`#/sessions/${task.session.id}`}>plan of {sessionLabel(task.session)}{task.session.finishedAt ? ' (finished)' : ''}</a>
    : <a href={`#/task/${task.id}?item=${item.id}`}>{task.title}</a>;
  const send = (state: string, comment?: string) => void run(async () => {
    await gql(UPDATE_ITEM, { input: { id: item.id, state, ...(comment ? { comment } : {}) } });
    setAsking(null);
    setReason('');
    onChanged();
  });
  const choose = (state: string) => (SAYS_WHY.has(state) ? setAsking({ state, pick: false }) : send(state));
  // Focus goes to the form once, when it opens: to its state when one is picked there, else to the reason.
  const askingOpen = asking !== null;
  useEffect(() => {
    if (askingOpen) document.getElementById(`stuck-reason${asking?.pick ? '-state' : ''}-${item.id}`)?.focus();
  }, [askingOpen]);
  const stop = () => { setAsking(null); setReason(''); document.getElementById(`stuck-${item.id}`)?.focus(); };
  return (
    <tr>
      <td>{unread && <><NewMark /> </>}<span class="text">{item.text}</span><br /><span class="muted small">{where}{task.domain ? ` · ${task.domain}` : ''}</span></td>
      <td>
        {writable
          ? <StateMenu id={`stuck-${item.id}`} label={item.text} value={asking?.state ?? item.state} words={STATE_LABEL} choose={choose} withReason={() => setAsking({ state: item.state, pick: true })} />
          : <span class={`state ${item.state}`}>{STATE_LABEL[item.state]}</span>}
        <br /><span class="small">{item.note ?? <span class="muted">(no reason given)</span>}</span>
        {asking && (
          <form class="rule-note" onSubmit={(event) => { event.preventDefault(); send(asking.state, reason.trim() || undefined); }}
            onKeyDown={(event) => { if (event.key === 'Escape') { event.stopPropagation(); stop(); } }}>
            {asking.pick && (
              <label><span>New state of “{item.text}”</span>
                <select id={`stuck-reason-state-${item.id}`} value={asking.state} onChange={(event) => setAsking({ ...asking, state: event.currentTarget.value })}>
                  {STATES.map((state) => <option value={state}>{STATE_LABEL[state]}</option>)}
                </select></label>
            )}
            <label><span>Why is “{item.text}” {STATE_LABEL[asking.state]}? (optional; the row shows it)</span>
              <textarea rows={2} value={reason} onInput={(event) => setReason(event.currentTarget.value)} id={`stuck-reason-${item.id}`} />
            </label>
            <button type="submit" disabled={busy || (asking.state === item.state && !reason.trim())}>Set {STATE_LABEL[asking.state]}</button>{' '}
            <button type="button" onClick={stop}>Cancel</button>
          </form>
        )}
        <Refusal error={error} />
      </td>
      <td class="nowrap">
        {row.setByKnown ? (row.setBy ? <a href={`#/sessions/${row.setBy.id}`}>{sessionLabel(row.setBy)}</a> : 'a person') : <span class="muted">—</span>}
        <br /><time class="small muted" dateTime={row.since} title={when(row.since)}>{ago(row.since)}</time>
      </td>
      <td>{item.claim ? <ItemCoordination item={{ ...item, deleted: false }} /> : <span class="muted">nobody</span>}</td>
    </tr>
  );
}
