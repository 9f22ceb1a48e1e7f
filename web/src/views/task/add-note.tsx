import { useState } from 'preact/hooks';
import { gql } from '../../api';
import { HashField } from '../../hash-field';
import { Refusal, useAction } from '../../widgets';
import { ADD_NOTE } from './documents';
import type { Choice } from './choices';

export function AddNote({ taskId, choices, onMenu }: { taskId: string; choices: Choice[]; onMenu?: () => void }) {
  const [title, setTitle] = useState('');
  const [body, setBody] = useState('');
  const [run, error, busy] = useAction();
  const add = async (event: Event) => {
    event.preventDefault();
    if (await run(() => gql(ADD_NOTE, { input: { taskId, title, body } }))) { setTitle(''); setBody(''); }
  };
  return (
    <details class="add-note">
      <summary>Add a note on the whole task</summary>
      <form onSubmit={add}>
        <label><span>Note title</span><input value={title} onInput={(event) => setTitle(event.currentTarget.value)} /></label>
        <HashField label="Note body" value={body} onInput={setBody} items={choices} rows={3} id="new-note-body" onMenu={onMenu} />
        <button type="submit" disabled={busy}>Add note</button>
        <Refusal error={error} />
      </form>
    </details>
  );
}
