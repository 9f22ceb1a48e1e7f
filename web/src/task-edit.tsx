import { useState } from 'preact/hooks';
import { ApiError, gql } from './api';
import { Conflict, saveAtVersion } from './conflicts';
import { refusalForPeople } from './refusal-words';
import { focusOnce } from './focus-once';
import type { TaskMeta } from './task-types';
import { Refusal, useAction } from './widgets';

const EDIT_TASK = 'mutation($input: EditTaskInput!) { editTask(input: $input) { id version title domain } }';
const CURRENT = 'query($id: ID!) { task(id: $id) { version title domain } }';
const DOMAIN_PATHS = '{ domains { path } }';
const ADD_ITEMS = 'mutation($input: AddItemsInput!) { addItems(input: $input) { items { id } } }';
const DROP_REST = 'mutation($input: DropRestAndArchiveInput!) { dropRestAndArchive(input: $input) { id version status } }';

interface Named { title: string; domain: string }
/** What these controls read of the task. */
type EditedTask = Pick<TaskMeta, 'id' | 'title' | 'domain' | 'status' | 'version'>;
interface Current { task: { version: number; title: string; domain: string } }
const same = (a: Named, b: Named) => a.title === b.title && a.domain === b.domain;
const said = (value: Named) => `“${value.title}” in ${value.domain}`;

/**
 * The task's own controls: its title and domain, edited at the version they
 * were read (a change made meanwhile is shown beside what was typed), and
 * archiving it or bringing it back. A plan has neither a domain nor an
 * archive, so it gets none of these.
 */
export function TaskEdit({ task, writable }: { task: EditedTask; writable: boolean }) {
  const [editing, setEditing] = useState<{ version: number; value: Named } | null>(null);
  const { domain } = task;
  if (!writable || !domain) return null;
  return (
    <div class="task-edit">
      {editing
        ? <EditForm task={task} base={editing} onDone={() => setEditing(null)} />
        : <button type="button" class="small" onClick={() => setEditing({ version: task.version, value: { title: task.title, domain } })}>Edit title and domain</button>}
      {' '}<Archive key={task.status} task={task} />
    </div>
  );
}

function EditForm({ task, base, onDone }: { task: EditedTask; base: { version: number; value: Named }; onDone(): void }) {
  const [title, setTitle] = useState(base.value.title);
  const [domain, setDomain] = useState(base.value.domain);
  const [domains, setDomains] = useState<string[]>([]);
  const [conflict, setConflict] = useState<{ theirs: Named; version: number } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [run, , busy] = useAction();
  if (!domains.length) void gql<{ domains: { path: string }[] }>(DOMAIN_PATHS).then((data) => setDomains(data.domains.map((row) => row.path)), () => undefined);
  const save = (from: { version: number; value: Named }) => void run(async () => {
    setError(null);
    try {
      const outcome = await saveAtVersion<Named>({
        base: from,
        same,
        send: (version) => gql(EDIT_TASK, { input: { id: task.id, expectedVersion: version, ...(title !== from.value.title ? { title } : {}), ...(domain.trim() !== from.value.domain ? { domain: domain.trim() } : {}) } }),
        current: async () => { const now = (await gql<Current>(CURRENT, { id: task.id })).task; return { version: now.version, value: { title: now.title, domain: now.domain } }; },
      });
      if (outcome.saved) {
        setConflict(null);
        onDone();
      } else setConflict({ theirs: outcome.theirs, version: outcome.version });
    } catch (failure) {
      // Nothing was changed, so there is nothing to save.
      if (failure instanceof ApiError && failure.reason === 'NOTHING_TO_CHANGE') return onDone();
      setError(refusalForPeople(failure).message);
    }
  });
  return (
    <form class="task-edit-form" onSubmit={(event) => { event.preventDefault(); save(base); }} aria-label="Edit the task's title and domain">
      <label><span>Title</span><input value={title} onInput={(event) => setTitle(event.currentTarget.value)} ref={focusOnce} /></label>
      <label><span>Domain</span><input value={domain} list="task-edit-domains" autoCapitalize="none" spellcheck={false} onInput={(event) => setDomain(event.currentTarget.value)} /></label>
      <datalist id="task-edit-domains">{domains.map((path) => <option value={path} />)}</datalist>
      {conflict ? (
        <Conflict what="The title or domain" mine={said({ title, domain: domain.trim() })} theirs={said(conflict.theirs)}
          onMine={() => save({ version: conflict.version, value: conflict.theirs })}
          onTheirs={() => { setConflict(null); onDone(); }} />
      ) : <><button type="submit" disabled={busy}>Save</button> <button type="button" onClick={onDone}>Cancel</button></>}
      <Refusal error={error} />
    </form>
  );
}

/**
 * A task is archived by its items (every live one DONE or DROPPED), so
 * archiving an open task means settling its items first, and bringing an
 * archived one back means giving it work again: reopening an item, or
 * adding what is left to do, which is offered here.
 */
function Archive({ task }: { task: EditedTask }) {
  const [asking, setAsking] = useState(false);
  const [left, setLeft] = useState('');
  const [reason, setReason] = useState('');
  const [run, error, busy] = useAction();
  if (task.status === 'ARCHIVED') {
    const bringBack = async (event: Event) => {
      event.preventDefault();
      const items = left.split('\n').map((line) => line.trim()).filter(Boolean);
      if (!items.length) return;
      // Adding cannot overwrite anyone's change: sent at the version seen, and again at the current one if the task moved on.
      const send = () => saveAtVersion({
        base: { version: task.version, value: 0 },
        send: (expectedVersion) => gql(ADD_ITEMS, { input: { taskId: task.id, items, expectedVersion } }),
        current: async () => ({ version: (await gql<Current>(CURRENT, { id: task.id })).task.version, value: 0 }),
      });
      if (await run(send)) { setLeft(''); setAsking(false); }
    };
    return (
      <span class="archive">
        <span class="state archived">archived</span>{' '}
        {asking ? (
          <form class="bring-back" onSubmit={bringBack}>
            <label><span>What is left to do? (one item per line; the task opens again)</span>
              <textarea rows={2} value={left} onInput={(event) => setLeft(event.currentTarget.value)} ref={focusOnce} /></label>
            <button type="submit" disabled={busy || !left.trim()}>Bring it back</button> <button type="button" onClick={() => setAsking(false)}>Cancel</button>
            <Refusal error={error} />
          </form>
        ) : <button type="button" class="small" onClick={() => setAsking(true)}>Bring back…</button>}
        <span class="muted small"> or set any item back to To do.</span>
      </span>
    );
  }
  // An open task is archived once its items are settled: say so, and offer to drop what is left, with one reason, in one step.
  const dropRest = async (event: Event) => {
    event.preventDefault();
    if (!reason.trim()) return;
    // Sent at the version seen: an agent's change meanwhile is refused (VERSION_CONFLICT), not dropped unseen.
    if (await run(() => gql(DROP_REST, { input: { taskId: task.id, reason: reason.trim(), expectedVersion: task.version } }))) { setReason(''); setAsking(false); }
  };
  return (
    <span class="archive">
      <button type="button" class="small" aria-expanded={asking} onClick={() => setAsking(!asking)}>Archive…</button>
      {asking && (
        <form class="drop-rest" onSubmit={dropRest} aria-describedby={`archive-help-${task.id}`}>
          <p class="notice" id={`archive-help-${task.id}`}>
            This task still has open work. A task is archived once every item is Done or Dropped: mark what is finished Done,
            and drop the rest here with why. It then moves to the domain’s archived tasks, and can be brought back from there.
          </p>
          <label><span>Why will the rest not be done? (every open item is dropped with this reason)</span>
            <textarea rows={2} value={reason} onInput={(event) => setReason(event.currentTarget.value)} ref={focusOnce} /></label>
          <button type="submit" class="danger" disabled={busy || !reason.trim()}>Drop the rest and archive</button> <button type="button" onClick={() => setAsking(false)}>Cancel</button>
          <Refusal error={error} />
        </form>
      )}
    </span>
  );
}
