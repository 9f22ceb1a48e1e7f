import { useState } from 'preact/hooks';
import { ApiError, canWrite, gql } from '../api';
import { useQuery } from '../live';
import { useSignal } from '../signal';
import { Refusal, useTitle } from '../widgets';

const DOMAIN_PATHS = '{ domains { path } }';
const CREATE_TASK = 'mutation($input: CreateTaskInput!) { createTask(input: $input) { task { id } } }';
/** What a domain looks like (src/domain/domains.ts): checked here first, so the usual slip is named before anything is sent. */
const DOMAIN = /^[a-z0-9][a-z0-9._-]*(\/[a-z0-9][a-z0-9._-]*){0,7}$/;

type Field = 'title' | 'goal' | 'items' | 'domain';

/** The form field a refusal is about, from its reason and facts (never its message). */
function fieldOf(failure: ApiError): Field | null {
  if (failure.code === 'INVALID_DOMAIN') return 'domain';
  if (['LABEL_TAKEN', 'LABEL_SENT_TWICE', 'ITEMS_PER_CALL', 'ITEMS_PER_TASK'].includes(failure.reason)) return 'items';
  const field = failure.facts.field;
  return field === 'title' || field === 'goal' || field === 'items' || field === 'domain' ? field : null;
}

/**
 * The server's refusal, said for the person at the form and placed at the
 * field it is about. The server's words are written for an agent ("send a
 * short label"); the code, reason and facts (extensions) say what happened,
 * so the form says it again. `noun` is what the form makes (a task, a note).
 */
export function refusalForPeople(failure: unknown, noun: 'task' | 'note' = 'task'): { field: Field | null; message: string } {
  if (!(failure instanceof ApiError)) return { field: null, message: String(failure) };
  const { code, reason, facts, message } = failure;
  const field = fieldOf(failure);
  if (code === 'EMPTY_TEXT' && field === 'title') return { field, message: `Give the ${noun} a title.` };
  if (code === 'EMPTY_TEXT' && field === 'goal') return { field, message: 'Write the goal: what is true once this task is done.' };
  if (code === 'EMPTY_TEXT') return { field: 'items', message: 'An item line has no visible text; remove the empty line or write the item.' };
  if (code === 'INVALID_DOMAIN') return { field: 'domain', message: 'A domain is lower-case words joined by “/”, such as acme/checkout (letters, digits, “.”, “_” or “-”, at most 8 levels).' };
  if (reason === 'LABEL_TOO_LONG' && typeof facts.item === 'number') {
    return { field: 'items', message: `Item ${facts.item} is ${facts.length} characters; an item may have ${facts.limit}. Shorten it and put the detail in the goal.` };
  }
  if (reason === 'LABEL_TOO_LONG' && field === 'title') {
    return { field, message: `The title is ${facts.length} characters; a title may have ${facts.limit}. Shorten it and put the detail in the ${noun === 'task' ? 'goal' : 'body'}.` };
  }
  if (code === 'REF_IN_LABEL') return { field, message: 'Titles and items are plain words: an [[#id]] reference belongs in the goal.' };
  if (code === 'BARE_ITEM_REFERENCE' || code === 'UNKNOWN_REFERENCE') return { field: 'goal', message: 'A new task has no items to cite yet: write the goal in words, and cite items later as [[#id]].' };
  return { field, message };
}

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
      const made = await gql(CREATE_TASK, { input: { title, goal, domain: path, itemsText: items } });
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
