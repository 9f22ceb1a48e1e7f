import { useState } from 'preact/hooks';
import { canWrite, gql } from './api';
import { useSignal } from './signal';
import { refusalForPeople } from './refusal-words';
import { focusOnce } from './focus-once';
import { Refusal } from './widgets';

const CREATE_NOTE = 'mutation($input: CreateNoteInput!) { createNote(input: $input) { id } }';

/** A new note in the domain shown: a title and a body. The list shows it when the domain's live change arrives. */
export function NewNote({ domain }: { domain: string }) {
  const writable = useSignal(canWrite);
  const [open, setOpen] = useState(false);
  const [title, setTitle] = useState('');
  const [body, setBody] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  if (!writable) return null;
  const add = async (event: Event) => {
    event.preventDefault();
    if (!title.trim()) return setError('Give the note a title.');
    if (!body.trim()) return setError('Write the note: its body is what people and agents read.');
    setBusy(true);
    setError(null);
    try {
      await gql(CREATE_NOTE, { input: { title, body, domain } });
      setTitle('');
      setBody('');
      setOpen(false);
    } catch (failure) {
      setError(refusalForPeople(failure, 'note').message);
    } finally {
      setBusy(false);
    }
  };
  if (!open) return <button type="button" onClick={() => setOpen(true)}>Add a note to {domain}</button>;
  return (
    <form class="new-note" onSubmit={add} aria-label={`New note in ${domain}`}>
      <label><span>Note title</span><input value={title} onInput={(event) => setTitle(event.currentTarget.value)} ref={focusOnce} /></label>
      <label><span>Note body</span><textarea rows={5} value={body} onInput={(event) => setBody(event.currentTarget.value)} /></label>
      <button type="submit" disabled={busy}>Save note</button> <button type="button" onClick={() => setOpen(false)}>Cancel</button>
      <Refusal error={error} />
    </form>
  );
}
