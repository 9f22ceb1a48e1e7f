import { useState } from 'preact/hooks';
import { gql } from '../../api';
import { type Item } from '../../task-types';
import { Refusal, useAction } from '../../widgets';
import { UPDATE_ITEM, SEARCH_NOTES } from './documents';

/** A note SEARCH_NOTES finds. */
interface NoteHit { id: string; title: string; domain: string | null }

export function LinkMemory({ item }: { item: Item }) {
  const [query, setQuery] = useState('');
  const [hits, setHits] = useState<NoteHit[]>([]);
  const [run, error] = useAction();
  const find = (value: string) => {
    setQuery(value);
    if (value.trim().length < 2) return setHits([]);
    gql<{ search: { nodes: NoteHit[] } }>(SEARCH_NOTES, { query: value }).then((data) => setHits(data.search.nodes), () => setHits([]));
  };
  return (
    <div class="link-memory">
      <label><span>Link a note to “{item.text}”</span>
        <input type="search" value={query} placeholder="Search notes…" onInput={(event) => find(event.currentTarget.value)} />
      </label>
      <ul class="results">
        {hits.map((hit) => (
          <li><button type="button" class="small" onClick={() => void run(() => gql(UPDATE_ITEM, { input: { id: item.id, related: [hit.id] } })).then((ok) => ok && (setQuery(''), setHits([])))}>
            Link “{hit.title}”</button> <span class="muted">{hit.domain}</span></li>
        ))}
      </ul>
      <Refusal error={error} />
    </div>
  );
}
