import { useEffect, useState } from 'preact/hooks';
import { canWrite, gql } from './api';
import { useQuery } from './live';
import { signal, useSignal } from './signal';
import { sessionLabel } from './session-name';
import { STATE_LABEL } from './states';
import { SteeringMark, useItemSteering } from './steering';
import { Refusal, useAction, when } from './widgets';

export interface Claim { claimedAt: string; expiresAt: string; session: { id: string; name: string | null; statusLine: string } }
export interface ItemClaim { claim: Claim | null; ready: boolean; blocks: { id: string }[] }

const RELEASE = 'mutation($id: ID!) { releaseClaim(id: $id) { id claim { expiresAt } } }';
const REF = 'id number text deleted state';
const DEPENDENCIES = `query($id: ID!) { item(id: $id) { blockedBy { item { ${REF} } reason reasonText } blocks { ${REF} } } }`;
/** An item as REF reads it, and DEPENDENCIES' answer. */
interface DependencyRef { id: string; number: number | null; text: string; deleted: boolean; state: string }
interface DependencyLists { blockedBy: { item: DependencyRef; reason: string | null; reasonText: string | null }[]; blocks: DependencyRef[] }

/** The claims of these items as they hold now, in one request (after a renewal, which records no history). */
export async function claimsNow(ids: readonly string[]): Promise<Map<string, Claim | null>> {
  if (ids.length === 0) return new Map();
  const fields = ids.map((id, index) => `c${index}: item(id: "${id.replace(/\D/g, '')}") { claim { claimedAt expiresAt session { id name statusLine } } }`);
  const data = await gql<Record<string, { claim: Claim | null } | null>>(`{ ${fields.join(' ')} }`);
  return new Map(ids.map((id, index) => [id, data[`c${index}`]?.claim ?? null]));
}

/** One clock for every countdown on the page: it ticks each second while a countdown is shown, and not at all otherwise. */
const clock = signal(Date.now());
let ticking: number | undefined;
let watchers = 0;
function useNow(): number {
  useEffect(() => {
    watchers += 1;
    if (watchers === 1) ticking = window.setInterval(() => clock.set(Date.now()), 1000);
    return () => {
      watchers -= 1;
      if (watchers === 0) clearInterval(ticking);
    };
  }, []);
  return useSignal(clock);
}

/** "expires in 12 min", to the second in its last ten minutes; "expired" once the lease ran out (an expired claim is no claim). */
export function timeLeft(ms: number): string {
  if (ms <= 0) return 'expired';
  const seconds = Math.ceil(ms / 1000);
  if (seconds < 60) return `expires in ${seconds} s`;
  if (seconds < 600) return `expires in ${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 120) return `expires in ${minutes} min`;
  return `expires in ${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** The holder as people know it (its name, else its short id), linked to its session. */
function SessionLink({ session }: { session: { id: string; name: string | null } }) {
  return <a href={`#/sessions/${session.id}`} title={session.id}>{sessionLabel(session)}</a>;
}

/**
 * What a row of a checklist says about coordination: who holds its claim and
 * for how long (counted down here, without asking the server again), a
 * Release button for a person, and that it waits for unfinished items.
 */
export function ItemCoordination({ item }: { item: ItemClaim & { id: string; text: string; state: string; deleted: boolean } }) {
  const waiting = !item.deleted && !item.ready && (item.state === 'PENDING' || item.state === 'IN_PROGRESS');
  return (
    <>
      {item.claim && <ClaimChip itemId={item.id} text={item.text} claim={item.claim} />}
      <ReleasedNote item={item} />
      {waiting && <span class="waits small">Waits for unfinished items (see Details)</span>}
      <ItemSteering itemId={item.id} />
    </>
  );
}

/** A person's latest change to this agent's item: not seen by the agent yet, or seen by it at a time. */
function ItemSteering({ itemId }: { itemId: string }) {
  const steering = useItemSteering(itemId);
  return steering ? <SteeringMark steering={steering} /> : null;
}

/** The answer to a release, kept after the claim is gone from the row. */
const released = signal<Record<string, string>>({});

function ReleasedNote({ item }: { item: { id: string; claim: Claim | null } }) {
  const notes = useSignal(released);
  return !item.claim && notes[item.id] ? <span role="status" class="ok small">{notes[item.id]}</span> : null;
}

function ClaimChip({ itemId, text, claim }: { itemId: string; text: string; claim: Claim }) {
  const now = useNow();
  const writable = useSignal(canWrite);
  const [run, error, busy] = useAction();
  const left = Date.parse(claim.expiresAt) - now;
  const release = () => void run(async () => {
    await gql(RELEASE, { id: itemId });
    released.set({ ...released.get(), [itemId]: `Claim released: “${text}” is free for the next agent.` });
  });
  return (
    <span class={`claim ${left > 0 ? '' : 'expired'}`}>
      <span class="claim-chip" title={`Claimed ${when(claim.claimedAt)}; holds until ${when(claim.expiresAt)} unless renewed`}>
        Claimed by <SessionLink session={claim.session} /> · <time dateTime={claim.expiresAt}>{timeLeft(left)}</time>
      </span>
      {writable && left > 0 && (
        <button type="button" class="small" disabled={busy} onClick={release} aria-label={`Release the claim on “${text}”`}>Release</button>
      )}
      <Refusal error={error} />
    </span>
  );
}

function RefLink({ item, taskId }: { item: DependencyRef; taskId: string }) {
  return (
    <>
      <a class={`ref ${item.deleted ? 'deleted' : ''}`} href={`#/task/${taskId}?item=${item.id}`}>#{item.number ?? '–'} {item.text}</a>{' '}
      <span class={`state ${item.state}`}>{item.deleted ? 'deleted' : STATE_LABEL[item.state]}</span>
    </>
  );
}

/** An opened row's dependencies: what it waits for (with each one's state and the reason given) and what waits for it. Read again when the row changes. */
export function Dependencies({ item, taskId }: { item: object & { id: string }; taskId: string }) {
  const [deps, setDeps] = useState<DependencyLists | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    gql<{ item: DependencyLists }>(DEPENDENCIES, { id: item.id }).then(
      (data) => current && (setDeps(data.item), setError(null)),
      (failure: Error) => current && setError(failure.message),
    );
    return () => { current = false; };
  }, [item]);
  if (!deps) return <Refusal error={error} />;
  if (deps.blockedBy.length === 0 && deps.blocks.length === 0) return null;
  return (
    <div class="dependencies">
      {deps.blockedBy.length > 0 && (
        <div><strong>Blocked by</strong>
          <ul>{deps.blockedBy.map((dep) => (
            <li><RefLink item={dep.item} taskId={taskId} />{dep.reasonText ? <span class="muted"> — {dep.reasonText}</span> : null}</li>
          ))}</ul>
        </div>
      )}
      {deps.blocks.length > 0 && (
        <div><strong>Blocks</strong>
          <ul>{deps.blocks.map((other) => <li><RefLink item={other} taskId={taskId} /></li>)}</ul>
        </div>
      )}
      <Refusal error={error} />
    </div>
  );
}

const SESSION_CLAIMS = 'query($id: ID!) { session(id: $id) { claims { id number text task { id title domain } claim { expiresAt } } } }';
interface HeldItem { id: string; number: number | null; text: string; task: { id: string; title: string; domain: string | null }; claim: { expiresAt: string } }
// Claims are changes of the claimed items' tasks, which are in domains: this hears them all.
const CLAIMS_LIVE = 'subscription { domainChanged { memoryId action } }';

/** A session's page: the items it holds now, each a link, with the time left on its claim. */
export function SessionClaims({ id }: { id: string }) {
  const held = useQuery<{ session: { claims: HeldItem[] } | null }>(SESSION_CLAIMS, { id }, { query: CLAIMS_LIVE, variables: {} });
  const now = useNow();
  const claims = held.data?.session?.claims ?? [];
  if (claims.length === 0) return <Refusal error={held.error} />;
  return (
    <section aria-labelledby="claims-heading">
      <h3 id="claims-heading">Claims held <span class="muted">({claims.length})</span></h3>
      <ul>
        {claims.map((item) => (
          <li>
            <a href={`#/task/${item.task.id}?item=${item.id}`}>#{item.number} {item.text}</a>{' '}
            <span class="muted">· {item.task.title}{item.task.domain ? ` · ${item.task.domain}` : ''} · {timeLeft(Date.parse(item.claim.expiresAt) - now)}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
