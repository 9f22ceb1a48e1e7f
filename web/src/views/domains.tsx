import { useEffect, useState } from 'preact/hooks';
import { canWrite, gql } from '../api';
import { useQuery } from '../live';
import { useSignal } from '../signal';
import { Loading, MoreText, Refusal, useAction, useTitle, when } from '../widgets';
import { DomainTabs, ReadyView } from './ready';
import { NewNote } from '../note-new';
import { TaskTable } from './task-table';

const DOMAINS = '{ domains { path tasks openTasks notes lastActivityAt createdAt } }';
const DOMAINS_LIVE = 'subscription { domainChanged { memoryId action } }';
const NOTES = `query($domain: String!) { memories(domain: $domain, kind: NOTE, first: 100) { totalCount nodes { id title domain updatedAt ... on Note { body } } } }`;
const DOMAIN_LIVE = 'subscription($under: String) { domainChanged(under: $under) { memoryId action } }';
const EDIT_NOTE = 'mutation($input: EditNoteInput!) { editNote(input: $input) { id title body } }';
const NOTE = `query($id: ID!) { memory(id: $id) { id title domain updatedAt ... on Note { body } } }`;

/** A memory as NOTES and NOTE read it: `body` only when it is a note (NOTE may name a task). */
interface NoteShown { id: string; title: string; domain: string; updatedAt: string; body?: string }
interface Domain { path: string; tasks: number; openTasks: number; notes: number; lastActivityAt: string; createdAt: string }
type DomainSort = 'activity' | 'path' | 'created' | 'open' | 'tasks';
/** Newest first by a time field, then by path. */
const newest = (field: 'lastActivityAt' | 'createdAt') => (a: Domain, b: Domain) => (a[field] < b[field] ? 1 : a[field] > b[field] ? -1 : a.path.localeCompare(b.path));
const ORDER: Record<Exclude<DomainSort, 'path'>, (a: Domain, b: Domain) => number> = {
  activity: newest('lastActivityAt'),
  created: newest('createdAt'),
  open: (a, b) => b.openTasks - a.openTasks || a.path.localeCompare(b.path),
  tasks: (a, b) => b.tasks - a.tasks || a.path.localeCompare(b.path),
};
/** Which domains the list shows, by the state of their tasks. */
const STATE_FILTER = { all: () => true, open: (d: Domain) => d.openTasks > 0, done: (d: Domain) => d.tasks > 0 && d.openTasks === 0, notes: (d: Domain) => d.tasks === 0 } as const;

/** The domains, most recently active first (or by name as a tree, or newest), with open/total task counts; the selected domain's tasks and notes beside it. */
export function DomainsView({ path, archived, note, ready, params }: { path: string | null; archived: boolean; note: string | null; ready?: boolean; params?: URLSearchParams }) {
  const domains = useQuery<{ domains: Domain[] }>(DOMAINS, {}, { query: DOMAINS_LIVE, variables: {} });
  const [filter, setFilter] = useState('');
  const [sort, setSort] = useState<DomainSort>('activity');
  const [state, setState] = useState<keyof typeof STATE_FILTER>('all');
  useTitle(path ? `${path} · domain` : 'Domains');
  const shown = (domains.data?.domains ?? [])
    .filter((domain) => domain.path.toLowerCase().includes(filter.trim().toLowerCase()) && STATE_FILTER[state](domain));
  if (sort !== 'path') shown.sort(ORDER[sort]);
  return (
    <div class={path ? 'split domain-open' : 'split'}>
      <nav aria-label="Domains" class="tree">
        <h2>Domains {domains.data && <span class="count">({domains.data.domains.length})</span>}</h2>
        <div class="tree-tools">
          <label><span>Filter domains</span><input type="search" value={filter} onInput={(event) => setFilter(event.currentTarget.value)} /></label>
          <label><span>Sort</span>
            <select value={sort} onChange={(event) => setSort(event.currentTarget.value as typeof sort)}>
              <option value="activity">Recent activity</option><option value="path">Name (as a tree)</option><option value="created">Newest first</option>
              <option value="open">Most open tasks</option><option value="tasks">Most tasks</option>
            </select></label>
          <label><span>Show</span>
            <select value={state} onChange={(event) => setState(event.currentTarget.value as typeof state)}>
              <option value="all">All domains</option><option value="open">With open tasks</option><option value="done">Every task done</option><option value="notes">Notes only</option>
            </select></label>
        </div>
        {!domains.data ? <Loading error={domains.error} /> : (
          <ul>
            {shown.map((domain) => (
              <li class={`depth-${Math.min(sort === 'path' && !filter ? domain.path.split('/').length - 1 : 0, 6)}`}>
                <a href={`#/domains/${domain.path}`} aria-current={domain.path === path ? 'page' : undefined}>
                  {sort === 'path' && !filter ? domain.path.split('/').pop() : domain.path}
                </a>{' '}
                <span class="count" title={`${domain.openTasks} open of ${domain.tasks} tasks`}>{domain.openTasks}/{domain.tasks}</span>
                {sort !== 'path' && <div class="muted small">{sort === 'created' ? 'since' : 'active'} <time dateTime={sort === 'created' ? domain.createdAt : domain.lastActivityAt}>{when(sort === 'created' ? domain.createdAt : domain.lastActivityAt)}</time></div>}
              </li>
            ))}
          </ul>
        )}
      </nav>
      <section class="main">{path ? <><DomainTabs path={path} ready={Boolean(ready)} />{ready ? <ReadyView path={path} /> : <DomainTasks path={path} archived={archived} note={note} params={params ?? new URLSearchParams()} />}</> : <p class="muted">Choose a domain, or search from the header.</p>}</section>
    </div>
  );
}

function DomainTasks({ path, archived, note, params }: { path: string; archived: boolean; note: string | null; params: URLSearchParams }) {
  const writable = useSignal(canWrite);
  const live = { query: DOMAIN_LIVE, variables: { under: path } };
  const notes = useQuery<{ memories: { totalCount: number; nodes: NoteShown[] } }>(NOTES, { domain: path }, live);
  return (
    <>
      <h2 tabIndex={-1}>{path}</h2>
      {note && <OpenedNote id={note} />}
      <div class="toolbar">
        <a href={`#/domains/${path}${archived ? '' : '?archived=1'}`} role="button" aria-pressed={archived}>
          {archived ? 'Showing archived tasks — show open' : 'Show archived tasks'}
        </a>{' '}
        {writable && <a href={`#/new-task?domain=${encodeURIComponent(path)}`} role="button">New task in {path}</a>}
      </div>
      <h3>{archived ? 'Archived tasks' : 'Tasks'}</h3>
      <TaskTable path={path} archived={archived} params={params} live={live} />
      <h3>Notes</h3>
      <NewNote domain={path} />
      {!notes.data ? <Loading error={notes.error} /> : notes.data.memories.nodes.length === 0 ? <p class="muted">No notes here.</p> : (
        <ul class="notes">{notes.data.memories.nodes.map((note) => <NoteCard note={note} />)}</ul>
      )}
    </>
  );
}

/** The note a link (a search hit, a linked note) named, open at the top, wherever it falls in the domain's list. */
function OpenedNote({ id }: { id: string }) {
  const note = useQuery<{ memory: NoteShown | null }>(NOTE, { id });
  useEffect(() => {
    if (note.data?.memory) requestAnimationFrame(() => document.getElementById(`opened-note-${id}`)?.scrollIntoView({ block: 'start' }));
  }, [note.data]);
  if (!note.data) return <Loading error={note.error} />;
  if (!note.data.memory) return <p role="alert">That note no longer exists.</p>;
  return <ul class="notes opened" id={`opened-note-${id}`} aria-label="The note you opened"><NoteCard note={note.data.memory} open /></ul>;
}

function NoteCard({ note, open }: { note: NoteShown; open?: boolean }) {
  const writable = useSignal(canWrite);
  const [editing, setEditing] = useState(false);
  const [title, setTitle] = useState(note.title);
  const [body, setBody] = useState(note.body);
  const [run, error, busy] = useAction();
  const save = async (event: Event) => {
    event.preventDefault();
    if (await run(() => gql(EDIT_NOTE, { input: { id: note.id, title, body } }))) setEditing(false);
  };
  return (
    <li class="note" id={`note-${note.id}`}>
      {editing ? (
        <form onSubmit={save} aria-label={`Edit note ${note.title}`}>
          <label><span>Title</span><input value={title} onInput={(event) => setTitle(event.currentTarget.value)} /></label>
          <label><span>Body</span><textarea rows={6} value={body} onInput={(event) => setBody(event.currentTarget.value)} /></label>
          <button type="submit" disabled={busy}>Save note</button> <button type="button" onClick={() => setEditing(false)}>Cancel</button>
          <Refusal error={error} />
        </form>
      ) : (
        <details open={open}>
          <summary>{note.title} <span class="muted">· {note.domain} · {when(note.updatedAt)}</span></summary>
          <MoreText><span class="body">{note.body}</span></MoreText>
          {writable && <button type="button" onClick={() => { setTitle(note.title); setBody(note.body); setEditing(true); }}>Edit note “{note.title}”</button>}
        </details>
      )}
    </li>
  );
}
