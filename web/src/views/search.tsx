import { useState } from 'preact/hooks';
import { gql } from '../api';
import { useQuery } from '../live';
import { stuckCount } from '../states';
import { Loading, Refusal, useTitle, when } from '../widgets';

const SEARCH = `query($query: String!, $after: String) { search(query: $query, first: 20, after: $after) {
  totalCount pageInfo { hasNextPage endCursor }
  nodes { id kind title domain updatedAt ... on Note { body } ... on Task { goal state progress { done total blocked failed } } } } }`;

/** A hit of SEARCH: a task with its goal and progress, or a note with its body. */
type Hit = { id: string; title: string; domain: string | null; updatedAt: string } & (
  | { kind: 'TASK'; goal: string; state: string; progress: { done: number; total: number; blocked: number; failed: number } }
  | { kind: 'NOTE'; body: string });
interface SearchPage { totalCount: number; pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: Hit[] }

/** Where a hit leads: a task opens; a note opens in its domain, unfolded. */
export function hitHref(hit: { id: string; kind: string; domain: string | null }): string {
  return hit.kind === 'TASK' ? `#/task/${hit.id}` : `#/domains/${hit.domain}?note=${hit.id}`;
}

/** The words of the query as search reads them: runs of letters and digits. */
function wordsOf(query: string): string[] {
  return query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** About 160 characters of the text around its first matching word, with the matches marked. */
function Snippet({ text, words }: { text: string; words: string[] }) {
  const lower = text.toLowerCase();
  const at = Math.min(...words.map((word) => lower.indexOf(word)).filter((index) => index >= 0), text.length);
  const start = at === text.length ? 0 : Math.max(0, at - 60);
  const piece = (start > 0 ? '…' : '') + text.slice(start, start + 160).replace(/\s+/g, ' ') + (start + 160 < text.length ? '…' : '');
  if (!words.length) return <span>{piece}</span>;
  const parts = piece.split(new RegExp(`(${words.map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})`, 'gi'));
  return <span>{parts.map((part, index) => (index % 2 ? <mark>{part}</mark> : part))}</span>;
}

/** Search results in the main pane: each with its kind, domain, a snippet of where it matched, and (for tasks) whether it is stuck. */
export function SearchView({ query }: { query: string }) {
  useTitle(query ? `Search: ${query}` : 'Search');
  const results = useQuery<{ search: SearchPage }>(SEARCH, { query });
  const [more, setMore] = useState<{ query: string; nodes: Hit[]; after: string | null; done: boolean }>({ query: '', nodes: [], after: null, done: false });
  const [error, setError] = useState<string | null>(null);
  if (!query.trim()) return <section class="main"><h2>Search</h2><p class="muted">Type words in the search box above.</p></section>;
  if (!results.data) return <section class="main"><h2>Search</h2><Loading error={results.error} /></section>;
  const page = results.data.search;
  const extra: typeof more = more.query === query ? more : { query, nodes: [], after: null, done: false };
  const hits = [...page.nodes, ...extra.nodes];
  const hasMore = extra.nodes.length ? !extra.done : page.pageInfo.hasNextPage;
  const words = wordsOf(query);
  const loadMore = () => gql<{ search: SearchPage }>(SEARCH, { query, after: extra.after ?? page.pageInfo.endCursor }).then((data) => {
    const next = data.search;
    setMore({ query, nodes: [...extra.nodes, ...next.nodes], after: next.pageInfo.endCursor, done: !next.pageInfo.hasNextPage });
  }, (failure: Error) => setError(failure.message));
  return (
    <section class="main search-results" aria-labelledby="search-heading">
      <h2 id="search-heading" tabIndex={-1}>Search: “{query}” <span class="count">({page.totalCount} found)</span></h2>
      {hits.length === 0 ? <p class="muted">Nothing found. Try fewer words, or the start of a word.</p> : (
        <ol class="hits">
          {hits.map((hit) => (
            <li>
              <a href={hitHref(hit)}>{hit.title}</a>{' '}
              <span class="muted small">{hit.kind === 'TASK' ? 'task' : 'note'} · {hit.domain} · <time dateTime={hit.updatedAt}>{when(hit.updatedAt)}</time></span>
              {hit.kind === 'TASK' && <> <span class={`state ${hit.state}`}>{hit.state.toLowerCase()}</span>{stuckCount(hit.progress) > 0 && <> <span class="state stuck">stuck</span></>}</>}
              <p class="snippet"><Snippet text={hit.kind === 'TASK' ? hit.goal : hit.body} words={words} /></p>
            </li>
          ))}
        </ol>
      )}
      {hasMore && <button type="button" onClick={() => void loadMore()}>Show more results</button>}
      <Refusal error={error} />
    </section>
  );
}
