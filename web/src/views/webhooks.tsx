import { useEffect, useState } from 'preact/hooks';
import { canWrite, gql } from '../api';
import { useQuery } from '../live';
import { useSignal } from '../signal';
import { Loading, Refusal, useAction, useTitle, when } from '../widgets';
import { MaintenanceTabs } from './maintenance';

const DELIVERY = 'id attempts lastStatus lastError deliveredAt nextAttemptAt changeCount change { id action domain at }';
const WEBHOOKS = `{ webhooks { id url owned domain active createdAt stoppedBy { ${DELIVERY} } deliveries(first: 10) { ${DELIVERY} } } }`;
const CREATE = 'mutation($input: CreateWebhookInput!) { createWebhook(input: $input) { id url } }';
const DELETE = 'mutation($id: ID!) { deleteWebhook(id: $id) }';
/** A POST of DELIVERY: its changes (the first, and how many), its attempts and how the last went. */
interface Delivery {
  id: string; attempts: number; lastStatus: number | null; lastError: string | null; deliveredAt: string | null; nextAttemptAt: string | null; changeCount: number;
  change: { id: string; action: string; domain: string | null; at: string } | null;
}
interface Webhook { id: string; url: string; owned: boolean; domain: string | null; active: boolean; createdAt: string; stoppedBy: Delivery | null; deliveries: Delivery[] }

/** Deliveries are sent and retried outside the change log, so the page reads them again on this beat too. */
const REREAD_MS = 5_000;
const SECRET_MIN = 16;

/** Maintenance → Webhooks: where changes are POSTed, how the latest deliveries went, and which webhooks gave up. */
export function WebhooksView() {
  const hooks = useQuery<{ webhooks: Webhook[] }>(WEBHOOKS, {}, { query: 'subscription { domainChanged { memoryId } }', variables: {} });
  useTitle('Webhooks · maintenance');
  const writable = useSignal(canWrite);
  useEffect(() => {
    const timer = setInterval(hooks.reload, REREAD_MS);
    return () => clearInterval(timer);
  }, []);
  const list = hooks.data?.webhooks;
  return (
    <section class="main" aria-labelledby="webhooks-heading">
      <MaintenanceTabs current="webhooks" />
      <h2 id="webhooks-heading" tabIndex={-1}>Webhooks</h2>
      <p>The changes under a webhook’s domain are POSTed to its URL as JSON, in order (several in one POST when they gather), signed with its secret (the <code>X-Taskbase-Signature</code> header), retried with growing pauses until the receiver answers 2xx. A webhook whose delivery fails every attempt stops and is marked inactive.</p>
      {!list ? <Loading error={hooks.error} /> : list.length === 0 ? <p class="muted">No webhooks yet.</p> : (
        <ul class="webhooks">{list.map((hook) => <WebhookCard hook={hook} writable={writable} onGone={hooks.reload} />)}</ul>
      )}
      {hooks.error && list && <Refusal error={hooks.error} />}
      {writable && <CreateWebhook onCreated={hooks.reload} />}
    </section>
  );
}

function WebhookCard({ hook, writable, onGone }: { hook: Webhook; writable: boolean; onGone(): void }) {
  const [confirming, setConfirming] = useState(false);
  const [run, error, busy] = useAction();
  const remove = async () => {
    if (await run(() => gql(DELETE, { id: hook.id }))) onGone();
  };
  return (
    <li class={`webhook ${hook.active ? '' : 'inactive'}`} aria-label={`Webhook ${hook.url}`}>
      <h3>
        {hook.active ? <span class="badge active">Active</span> : <span class="badge inactive">Inactive</span>}{' '}
        <span class="url">{hook.url}</span>
      </h3>
      <p class="muted small">{hook.domain ? <>Changes under <a href={`#/domains/${hook.domain}`}>{hook.domain}</a></> : 'Every change'} · created {when(hook.createdAt)}</p>
      {!hook.active && (
        <p class="stopped" role="note">
          <strong>Nothing more is sent to this webhook.</strong>{' '}
          {hook.stoppedBy
            ? hook.stoppedBy.change
              ? <>Delivery {hook.stoppedBy.id} ({changesWords(hook.stoppedBy.changeCount, hook.stoppedBy.change)}) failed all {hook.stoppedBy.attempts} attempts; the last {failure(hook.stoppedBy)}.</>
              : <>Its undelivered changes {hook.stoppedBy.lastError}.</>
            : 'A delivery failed every attempt.'}{' '}
          Fix the receiver, then reactivate it (the reactivateWebhook mutation): it resumes from the last change it delivered, and sends every change the log still holds.
        </p>
      )}
      <Deliveries rows={hook.deliveries} />
      {writable && hook.owned && (confirming ? (
        <p>
          <span>Delete the webhook for {hook.url} and its undelivered changes?</span>{' '}
          <button type="button" class="danger" disabled={busy} onClick={() => void remove()}>Yes, delete it</button>{' '}
          <button type="button" onClick={() => setConfirming(false)}>Keep it</button>
        </p>
      ) : (
        <button type="button" class="small danger" onClick={() => setConfirming(true)} aria-label={`Delete the webhook for ${hook.url}`}>Delete</button>
      ))}
      <Refusal error={error} />
    </li>
  );
}

function Deliveries({ rows }: { rows: Delivery[] }) {
  if (rows.length === 0) return <p class="muted small">No deliveries yet: the first change under its domain will be sent.</p>;
  return (
    <table class="tasks deliveries">
      <caption class="sr">Latest deliveries, newest first</caption>
      <thead><tr><th scope="col">Delivery</th><th scope="col">Change</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Next try</th><th scope="col">Last error</th></tr></thead>
      <tbody>
        {rows.map((row) => (
          <tr class={row.deliveredAt ? 'delivered' : row.attempts > 0 ? 'failing' : ''}>
            <td>{row.id}</td>
            <td>{row.change ? <>{changesWords(row.changeCount, row.change)}{row.change.domain && <span class="muted"> · {row.change.domain}</span>}</> : '—'}</td>
            <td class="nowrap">{status(row)}</td>
            <td>{row.attempts}</td>
            <td class="nowrap">{row.nextAttemptAt ? <time dateTime={row.nextAttemptAt}>{when(row.nextAttemptAt)}</time> : '—'}</td>
            <td>{row.lastError ?? (row.lastStatus !== null && !row.deliveredAt ? `HTTP ${row.lastStatus}` : '—')}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function status(row: Delivery): string {
  if (row.deliveredAt) return `Delivered (HTTP ${row.lastStatus}) ${when(row.deliveredAt)}`;
  if (row.attempts === 0) return 'Waiting to be sent';
  if (!row.nextAttemptAt) return `Gave up (${row.lastStatus === null ? 'no answer' : `HTTP ${row.lastStatus}`})`;
  return `Failed (${row.lastStatus === null ? 'no answer' : `HTTP ${row.lastStatus}`}), will retry`;
}

function failure(row: Delivery): string {
  return row.lastStatus === null ? `got no answer (${row.lastError ?? 'could not connect'})` : `was answered HTTP ${row.lastStatus}`;
}

/** "item state", or "item state and 4 more" for a POST that carried several changes. */
function changesWords(changeCount: number, change: { action: string }): string {
  return changeCount > 1 ? `${actionWords(change.action)} and ${changeCount - 1} more` : actionWords(change.action);
}

/** ITEM_STATE → "item state". */
function actionWords(action: string): string {
  return action.toLowerCase().replace(/_/g, ' ');
}

function CreateWebhook({ onCreated }: { onCreated(): void }) {
  const [url, setUrl] = useState('');
  const [domain, setDomain] = useState('');
  const [secret, setSecret] = useState('');
  const [made, setMade] = useState<string | null>(null);
  const [run, error, busy] = useAction();
  const create = async (event: Event) => {
    event.preventDefault();
    setMade(null);
    const input = { url: url.trim(), domain: domain.trim() || null, secret };
    if (await run(() => gql(CREATE, { input }))) {
      setMade(`Webhook created for ${input.url}.`);
      setUrl(''); setDomain(''); setSecret('');
      onCreated();
    }
  };
  const short = secret.length > 0 && secret.length < SECRET_MIN;
  return (
    // noValidate: the server's own refusal, beside the button, says what to send instead.
    <form class="create-webhook" onSubmit={create} noValidate aria-labelledby="create-webhook-heading">
      <h3 id="create-webhook-heading">Create a webhook</h3>
      <label><span>URL (http or https)</span><input type="url" value={url} placeholder="https://example.com/taskbase" onInput={(event) => setUrl(event.currentTarget.value)} /></label>
      <label><span>Domain (optional: its changes and those under it; empty for every change)</span>
        <input value={domain} placeholder="acme/checkout" onInput={(event) => setDomain(event.currentTarget.value)} /></label>
      <label><span>Secret (at least {SECRET_MIN} characters)</span>
        <input type="password" autoComplete="new-password" value={secret} aria-describedby="secret-help" onInput={(event) => setSecret(event.currentTarget.value)} /></label>
      <p id="secret-help" class={`small ${short ? 'warn' : 'muted'}`}>
        The receiver checks each delivery with it: X-Taskbase-Signature is sha256= and the HMAC-SHA256 of “timestamp.body”. At least {SECRET_MIN} characters, so it cannot be guessed; it is never shown again.
        {short && ` ${secret.length} of ${SECRET_MIN} so far.`}
      </p>
      <button type="submit" disabled={busy}>Create webhook</button>
      <Refusal error={error} />
      {made && !error && <span role="status" class="ok">{made}</span>}
    </form>
  );
}
