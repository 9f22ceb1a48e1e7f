import { useState } from 'preact/hooks';
import { gql } from '../../api';
import { saveAtVersion } from '../../conflicts';
import { Refusal, useAction } from '../../widgets';
import { ADD_ITEMS } from './documents';

export function AddItems({ taskId, version }: { taskId: string; version: number }) {
  const [text, setText] = useState('');
  const [run, error, busy] = useAction();
  const add = async (event: Event) => {
    event.preventDefault();
    const items = text.split('\n').map((line) => line.trim()).filter(Boolean);
    // Appending cannot overwrite anyone's change: sent at the version seen, and again at the current one if the task moved on meanwhile.
    const send = () => saveAtVersion({
      base: { version, value: 0 },
      send: (expectedVersion) => gql(ADD_ITEMS, { input: { taskId, items, expectedVersion } }),
      current: async () => ({ version: (await gql<{ task: { version: number } }>('query($id: ID!) { task(id: $id) { version } }', { id: taskId })).task.version, value: 0 }),
    });
    if (items.length && (await run(send))) setText('');
  };
  return (
    <form class="add-items" onSubmit={add}>
      <label><span>Add items (one per line)</span>
        <textarea rows={2} value={text} onInput={(event) => setText(event.currentTarget.value)}
          onKeyDown={(event) => { if (event.key === 'Enter' && !event.shiftKey) { event.preventDefault(); void add(event); } }} />
      </label>
      <button type="submit" disabled={busy}>Add</button>
      <Refusal error={error} />
    </form>
  );
}
