import { useState } from 'preact/hooks';
import { ApiError, canWrite, gql } from '../api';
import { refusalForPeople, type Field } from '../refusal-words';
import { useQuery } from '../live';
import { useSignal } from '../signal';
import { Refusal, useTitle } from '../widgets';

const DOMAIN_PATHS = '{ domains { path } }';
const CREATE_TASK = 'mutation($input: CreateTaskInput!) { createTask(input: $input) { task { id } } }';
/** What a domain looks like (src/domain/domains.ts): checked here first, so the usual slip is named before anything is sent. */
const DOMAIN = /^[a-z0-9][a-z0-9._-]*(\/[a-z0-9][a-z0-9._-]*){0,7}$/;

/** Opens a task from the page: title, goal, items one per line, and a domain picked from the known ones or typed new. */
export function NewTaskView({ domain: initialDomain }: { domain: string }) {
  const writable = useSignal(canWrite);
  const domains = useQuery<{ domains: { path: string }[] }>(DOMAIN_PATHS, {});
  const [title, setTitle] = useState('');
  const [goal, setGoal] = useState('');
  const [items, setItems] = useState('');
  const [domain, setDomain] = useState(initialDomain);
  const [refusal, setRefusal] = useState<{ field: Field | null; message: string } | null>(null);
  const [busy, setBusy] = useState(false);
  useTitle('New task');
  if (!writable) return <p role="alert">This token may only read, so it cannot open tasks. Sign in with a token that may write.</p>;
  const submit = async (event: Event) => {
    event.preventDefault();
    const path = domain.trim();
    if (!title.trim()) return setRefusal({ field: 'title', message: 'Give the task a title.' });
    if (!goal.trim()) return setRefusal({ field: 'goal', message: 'Write the goal: what is true once this task is done.' });
    if (!DOMAIN.test(path)) return setRefusal(refusalForPeople(new ApiError('domain', 'INVALID_DOMAIN')));
    setBusy(true);
    setRefusal(null);
    try {
      const made = await gql<{ createTask: { task: { id: string } } }>(CREATE_TASK, { input: { title, goal, domain: path, itemsText: items } });
      location.hash = `#/task/${made.createTask.task.id}`;
    } catch (failure) {
      setRefusal(refusalForPeople(failure));
    } finally {
      setBusy(false);
    }
  };
  const at = (field: Field) => (refusal?.field === field ? <Refusal error={refusal.message} /> : null);
  const described = (field: Field) => (refusal?.field === field ? { 'aria-invalid': true } : {});
  return (
    <section class="main narrow new-task" aria-labelledby="new-task-heading">
      <h2 id="new-task-heading" tabIndex={-1}>New task</h2>
      <form onSubmit={submit} noValidate>
        <label><span>Title</span><input value={title} onInput={(event) => setTitle(event.currentTarget.value)} {...described('title')} /></label>
        {at('title')}
        <label><span>Goal — what is true once it is done</span><textarea rows={3} value={goal} onInput={(event) => setGoal(event.currentTarget.value)} {...described('goal')} /></label>
        {at('goal')}
        <label><span>Items, one per line</span><textarea rows={6} value={items} onInput={(event) => setItems(event.currentTarget.value)} {...described('items')} /></label>
        {at('items')}
        <label><span>Domain — pick one or type a new one, e.g. acme/checkout</span>
          <input value={domain} list="known-domains" autoCapitalize="none" spellcheck={false} onInput={(event) => setDomain(event.currentTarget.value)} {...described('domain')} /></label>
        <datalist id="known-domains">{(domains.data?.domains ?? []).map((known) => <option value={known.path} />)}</datalist>
        {at('domain')}
        <p><button type="submit" disabled={busy}>{busy ? 'Creating…' : 'Create task'}</button>{' '}
          <a href={domain.trim() ? `#/domains/${domain.trim()}` : '#/domains'}>Cancel</a></p>
        {refusal && refusal.field === null && <Refusal error={refusal.message} />}
      </form>
    </section>
  );
}
