import { useState } from 'preact/hooks';
import { canWrite, gql } from '../api';
import { HashField } from '../hash-field';
import { useQuery } from '../live';
import { RefText, type ItemRef } from '../refs';
import { useSignal } from '../signal';
import { Loading, Progress, Refusal, useAction, when } from '../widgets';

const REF = 'id number text deleted';
const COMMENT = `id body createdAt refs { ${REF} }`;
const BRIEF = `goal context steps pitfalls doneWhen extraInfo dependsOn { item { ${REF} } reason }`;
export const TASK = `query($id: ID!, $deleted: Boolean!) { task(id: $id) {
  id title goal goalRefs { ${REF} } domain state status version updatedAt session { id }
  progress { done total }
  items(first: 200, includeDeleted: $deleted) { totalCount nodes {
    id number text state deleted note added
    related { id title kind domain }
  } }
  comments(first: 200, includeItems: true) { totalCount nodes { ${COMMENT} item { id } } }
  notes(first: 100) { totalCount nodes { id title body brief { ${BRIEF} } items { id number text } refs { ${REF} } updatedAt } }
  history(first: 100) { totalCount nodes { id action at sessionId items { id text state } changes { itemId kind text from to } } }
} }`;
const TASK_LIVE = 'subscription($id: ID!) { taskChanged(id: $id) { taskId action } }';
const UPDATE_ITEM = 'mutation($input: UpdateItemInput!) { updateItem(input: $input) { id state text } }';
const ADD_ITEMS = 'mutation($input: AddItemsInput!) { addItems(input: $input) { items { id } } }';
const MOVE_ITEM = 'mutation($input: MoveItemInput!) { moveItem(input: $input) { id } }';
const DELETE_ITEM = 'mutation($id: ID!) { deleteItem(id: $id) { id } }';
const ADD_COMMENT = 'mutation($input: AddCommentInput!) { addComment(input: $input) { id } }';
const EDIT_TASK = 'mutation($input: EditTaskInput!) { editTask(input: $input) { id } }';
const EDIT_NOTE = 'mutation($input: EditTaskNoteInput!) { editTaskNote(input: $input) { id } }';
const ADD_NOTE = 'mutation($input: AddTaskNoteInput!) { addTaskNote(input: $input) { id } }';
const SEARCH_NOTES = 'query($query: String!) { search(query: $query, kind: NOTE, first: 8) { nodes { id title domain } } }';

const STATES = ['PENDING', 'IN_PROGRESS', 'DONE', 'DROPPED', 'BLOCKED', 'FAILED'] as const;
const STATE_LABEL: Record<string, string> = { PENDING: 'To do', IN_PROGRESS: 'Doing', DONE: 'Done', DROPPED: 'Dropped', BLOCKED: 'Blocked', FAILED: 'Failed' };

interface Item { id: string; number: number | null; text: string; state: string; deleted: boolean; note: string | null; added: boolean; related: any[]; comments: any[] }

/** A task as a checklist, with its goal, notes and briefs, comments and history; live. */
export function TaskView({ id, focusItem }: { id: string; focusItem: string | null }) {
  const [showDeleted, setShowDeleted] = useState(false);
  const task = useQuery(TASK, { id, deleted: showDeleted }, { query: TASK_LIVE, variables: { id } });
  const writable = useSignal(canWrite);
  if (!task.data) return <Loading error={task.error} />;
  const t = task.data.task;
  if (!t) return <p role="alert">There is no task {id}.</p>;
  // One page of comments for the task and all its items, handed to each item (one list costs what one does).
  const byItem = new Map<string, any[]>();
  for (const comment of t.comments.nodes) if (comment.item) byItem.set(comment.item.id, [...(byItem.get(comment.item.id) ?? []), comment]);
  const items: Item[] = t.items.nodes.map((item: Item) => ({ ...item, comments: byItem.get(item.id) ?? [] }));
  const live = items.filter((item) => !item.deleted);
  const choices = live.map((item) => ({ id: item.id, number: item.number, text: item.text }));
  const allRefs: ItemRef[] = items.map((item: Item) => ({ id: item.id, number: item.number, text: item.text, deleted: item.deleted }));
  return (
    <article class="task" aria-labelledby="task-title">
      <p class="crumbs">{t.domain ? <a href={`#/domains/${t.domain}`}>{t.domain}</a> : t.session ? <a href={`#/sessions/${t.session.id}`}>session plan</a> : null}</p>
      <h2 id="task-title">{t.title}</h2>
      <p class="meta">
        <span class={`state ${t.state}`}>{t.state.toLowerCase()}</span>{' '}
        <Progress done={t.progress.done} total={t.progress.total} label={`${t.progress.done} of ${t.progress.total} items done`} />{' '}
        <span class="muted">updated <time dateTime={t.updatedAt}>{when(t.updatedAt)}</time> · version {t.version}</span>
      </p>
      <Goal task={t} choices={choices} writable={writable} />
      <section aria-labelledby="checklist-heading">
        <h3 id="checklist-heading">Checklist</h3>
        <label class="inline"><input type="checkbox" checked={showDeleted} onChange={(event) => setShowDeleted(event.currentTarget.checked)} /> Show deleted items</label>
        <Checklist task={t} items={items} choices={choices} allRefs={allRefs} writable={writable} focusItem={focusItem} reload={task.reload} />
        {writable && <AddItems taskId={t.id} />}
      </section>
      <Notes task={t} choices={choices} writable={writable} />
      <Comments taskId={t.id} comments={t.comments.nodes.filter((comment: any) => !comment.item)} choices={choices} writable={writable} label="Comments on the task" />
      <History history={t.history} />
    </article>
  );
}

function Goal({ task, choices, writable }: { task: any; choices: any[]; writable: boolean }) {
  const [editing, setEditing] = useState(false);
  const [goal, setGoal] = useState(task.goal);
  const [run, error, busy] = useAction();
  const save = async (event: Event) => {
    event.preventDefault();
    if (await run(() => gql(EDIT_TASK, { input: { id: task.id, goal } }))) setEditing(false);
  };
  return (
    <section class="goal" aria-label="Goal">
      {editing ? (
        <form onSubmit={save}>
          <HashField label="Goal" value={goal} onInput={setGoal} items={choices} rows={3} />
          <button type="submit" disabled={busy}>Save goal</button> <button type="button" onClick={() => setEditing(false)}>Cancel</button>
          <Refusal error={error} />
        </form>
      ) : (
        <p><strong>Goal:</strong> <RefText text={task.goal} refs={task.goalRefs} taskId={task.id} />{' '}
          {writable && <button type="button" class="small" onClick={() => { setGoal(task.goal); setEditing(true); }}>Edit goal</button>}</p>
      )}
    </section>
  );
}

function Checklist(props: { task: any; items: Item[]; choices: any[]; allRefs: ItemRef[]; writable: boolean; focusItem: string | null; reload(): void }) {
  const [dragging, setDragging] = useState<string | null>(null);
  const [run, error] = useAction();
  const liveItems = props.items.filter((item) => !item.deleted);
  const move = (item: Item, offset: -1 | 1) => {
    const index = liveItems.findIndex((other) => other.id === item.id);
    const target = index + offset;
    if (target < 0 || target >= liveItems.length) return;
    // After the item that will precede it: the one above the target place, or first.
    const after = offset === -1 ? (target === 0 ? null : liveItems[target - 1].id) : liveItems[target].id;
    void run(() => gql(MOVE_ITEM, { input: { id: item.id, after } })).then(() => {
      requestAnimationFrame(() => document.getElementById(`state-${item.id}`)?.focus());
    });
  };
  const drop = (target: Item) => {
    if (!dragging || dragging === target.id) return;
    const from = liveItems.findIndex((item) => item.id === dragging);
    const to = liveItems.findIndex((item) => item.id === target.id);
    const after = from < to ? target.id : to === 0 ? null : liveItems[to - 1].id;
    void run(() => gql(MOVE_ITEM, { input: { id: dragging, after } }));
    setDragging(null);
  };
  return (
    <>
      <Refusal error={error} />
      <ol class="checklist" aria-label="Items">
        {props.items.map((item) => (
          <ItemRow
            key={item.id}
            item={item}
            {...props}
            onMove={(offset) => move(item, offset)}
            dragProps={props.writable && !item.deleted ? {
              draggable: true,
              onDragStart: (event: DragEvent) => { setDragging(item.id); event.dataTransfer?.setData('text/plain', item.id); },
              onDragOver: (event: DragEvent) => event.preventDefault(),
              onDrop: (event: DragEvent) => { event.preventDefault(); drop(item); },
              onDragEnd: () => setDragging(null),
            } : {}}
          />
        ))}
      </ol>
    </>
  );
}

function ItemRow(props: { item: Item; task: any; choices: any[]; allRefs: ItemRef[]; writable: boolean; focusItem: string | null; onMove(offset: -1 | 1): void; dragProps: Record<string, unknown> }) {
  const { item, writable } = props;
  const [renaming, setRenaming] = useState(false);
  const [text, setText] = useState(item.text);
  const [open, setOpen] = useState(props.focusItem === item.id);
  const [run, error, busy] = useAction();
  const setState = (state: string) => void run(() => gql(UPDATE_ITEM, { input: { id: item.id, state } }));
  const rename = async (event: Event) => {
    event.preventDefault();
    if (await run(() => gql(UPDATE_ITEM, { input: { id: item.id, text } }))) setRenaming(false);
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (!writable || !event.altKey) return;
    if (event.key === 'ArrowUp') { event.preventDefault(); props.onMove(-1); }
    if (event.key === 'ArrowDown') { event.preventDefault(); props.onMove(1); }
  };
  return (
    <li id={`item-${item.id}`} class={`item ${item.state} ${item.deleted ? 'deleted' : ''} ${props.focusItem === item.id ? 'focused' : ''}`} onKeyDown={onKeyDown} {...props.dragProps}>
      <div class="row">
        {writable && !item.deleted && <span class="handle" aria-hidden="true" title="Drag to reorder">⠿</span>}
        <span class="num">{item.number ?? '–'}.</span>
        {writable && !item.deleted ? (
          <select id={`state-${item.id}`} aria-label={item.text} value={item.state} onChange={(event) => setState(event.currentTarget.value)} title="Alt+↑/↓ moves the item">
            {STATES.map((state) => <option value={state}>{STATE_LABEL[state]}</option>)}
          </select>
        ) : (
          <span class={`state ${item.state}`} aria-label={`${item.text}: ${STATE_LABEL[item.state]}`}>{STATE_LABEL[item.state]}</span>
        )}
        {renaming ? (
          <form class="rename" onSubmit={rename}>
            <label><span class="sr">New text for “{item.text}”</span>
              <input value={text} maxLength={80} onInput={(event) => setText(event.currentTarget.value)} onKeyDown={(event) => event.key === 'Escape' && setRenaming(false)} ref={(el) => el?.focus()} />
            </label>
            <button type="submit" disabled={busy}>Save</button> <button type="button" onClick={() => setRenaming(false)}>Cancel</button>
          </form>
        ) : (
          <span class="text">{item.deleted ? <s>{item.text}</s> : item.text}{item.deleted && <span class="muted"> (deleted)</span>}</span>
        )}
        {item.note && <span class="note-line muted">— {item.note}</span>}
        <span class="actions">
          <button type="button" class="small" aria-expanded={open} onClick={() => setOpen(!open)} aria-label={`Details of “${item.text}”`}>
            {item.comments.length ? `Details · ${item.comments.length}` : 'Details'}
          </button>
          {writable && !item.deleted && !renaming && (
            <>
              <button type="button" class="small" onClick={() => { setText(item.text); setRenaming(true); }} aria-label={`Rename “${item.text}”`}>Rename</button>
              <button type="button" class="small" onClick={() => props.onMove(-1)} aria-label={`Move “${item.text}” up`}>↑</button>
              <button type="button" class="small" onClick={() => props.onMove(1)} aria-label={`Move “${item.text}” down`}>↓</button>
              <button type="button" class="small danger" onClick={() => void run(() => gql(DELETE_ITEM, { id: item.id }))} aria-label={`Delete “${item.text}”`}>Delete</button>
            </>
          )}
        </span>
      </div>
      <Refusal error={error} />
      {open && <ItemDetails {...props} />}
    </li>
  );
}

function ItemDetails({ item, task, choices, writable }: { item: Item; task: any; choices: any[]; writable: boolean }) {
  const briefs = task.notes.nodes.filter((note: any) => note.items.some((briefed: any) => briefed.id === item.id));
  return (
    <div class="details">
      {item.related.length > 0 && (
        <p>Linked: {item.related.map((memory: any) => <a class="chip" href={memory.kind === 'TASK' ? `#/task/${memory.id}` : `#/domains/${memory.domain}?note=${memory.id}`}>{memory.title}</a>)}</p>
      )}
      {briefs.map((note: any) => <TaskNote note={note} task={task} choices={choices} writable={writable} />)}
      {writable && !item.deleted && <LinkMemory item={item} />}
      <Comments taskId={task.id} itemId={item.id} comments={item.comments} choices={choices} writable={writable && !item.deleted} label={`Comments on “${item.text}”`} />
    </div>
  );
}

function LinkMemory({ item }: { item: Item }) {
  const [query, setQuery] = useState('');
  const [hits, setHits] = useState<any[]>([]);
  const [run, error] = useAction();
  const find = (value: string) => {
    setQuery(value);
    if (value.trim().length < 2) return setHits([]);
    gql(SEARCH_NOTES, { query: value }).then((data) => setHits(data.search.nodes), () => setHits([]));
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

function AddItems({ taskId }: { taskId: string }) {
  const [text, setText] = useState('');
  const [run, error, busy] = useAction();
  const add = async (event: Event) => {
    event.preventDefault();
    const items = text.split('\n').map((line) => line.trim()).filter(Boolean);
    if (items.length && (await run(() => gql(ADD_ITEMS, { input: { taskId, items } })))) setText('');
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

const BRIEF_FIELDS = [['goal', 'Goal'], ['context', 'Context'], ['steps', 'Steps'], ['pitfalls', 'Pitfalls'], ['doneWhen', 'Done when'], ['extraInfo', 'Extra info']] as const;

function Notes({ task, choices, writable }: { task: any; choices: any[]; writable: boolean }) {
  const wholeTask = task.notes.nodes.filter((note: any) => note.items.length === 0);
  const briefs = task.notes.nodes.filter((note: any) => note.items.length > 0);
  return (
    <section aria-labelledby="notes-heading">
      <h3 id="notes-heading">Notes and briefs</h3>
      {task.notes.totalCount === 0 && <p class="muted">No notes on this task.</p>}
      {[...wholeTask, ...briefs].map((note: any) => <TaskNote note={note} task={task} choices={choices} writable={writable} />)}
      {writable && <AddNote taskId={task.id} choices={choices} />}
    </section>
  );
}

function TaskNote({ note, task, choices, writable }: { note: any; task: any; choices: any[]; writable: boolean }) {
  const [editing, setEditing] = useState(false);
  const [title, setTitle] = useState(note.title);
  const [body, setBody] = useState(note.body ?? '');
  const [brief, setBrief] = useState<Record<string, string>>({});
  const [run, error, busy] = useAction();
  const start = () => {
    setTitle(note.title);
    setBody(note.body ?? '');
    setBrief(note.brief ? Object.fromEntries(BRIEF_FIELDS.map(([key]) => [key, note.brief[key] ?? ''])) : {});
    setEditing(true);
  };
  const save = async (event: Event) => {
    event.preventDefault();
    const input: Record<string, unknown> = { id: note.id, title };
    if (note.brief) {
      input.brief = {
        ...Object.fromEntries(BRIEF_FIELDS.map(([key]) => [key, brief[key]])),
        extraInfo: brief.extraInfo?.trim() ? brief.extraInfo : null,
        dependsOn: note.brief.dependsOn.map((dep: any) => ({ item: dep.item.id, reason: dep.reason })),
      };
    } else input.body = body;
    if (await run(() => gql(EDIT_NOTE, { input }))) setEditing(false);
  };
  const kind = note.brief ? `Brief on ${note.items.map((item: any) => `#${item.number ?? '–'}`).join(', ')}` : 'Note';
  return (
    <div class="task-note" id={`note-${note.id}`}>
      {editing ? (
        <form onSubmit={save} aria-label={`Edit ${note.title}`}>
          <label><span>Title</span><input value={title} onInput={(event) => setTitle(event.currentTarget.value)} /></label>
          {note.brief ? BRIEF_FIELDS.map(([key, label]) => (
            <HashField label={label} value={brief[key] ?? ''} onInput={(value) => setBrief({ ...brief, [key]: value })} items={choices} id={`${note.id}-${key}`} />
          )) : <HashField label="Body" value={body} onInput={setBody} items={choices} rows={4} id={`${note.id}-body`} />}
          <button type="submit" disabled={busy}>Save</button> <button type="button" onClick={() => setEditing(false)}>Cancel</button>
          <Refusal error={error} />
        </form>
      ) : (
        <details open={Boolean(note.brief)}>
          <summary><span class="muted">{kind}:</span> {note.title}</summary>
          {note.brief ? (
            <dl class="brief">
              {BRIEF_FIELDS.map(([key, label]) => note.brief[key] ? <><dt>{label}</dt><dd><RefText text={note.brief[key]} refs={note.refs} taskId={task.id} /></dd></> : null)}
              <dt>Depends on</dt>
              <dd>{note.brief.dependsOn.length === 0 ? 'none' : note.brief.dependsOn.map((dep: any) => (
                <span><RefText text={`[[#${dep.item.id}]]`} refs={[dep.item]} taskId={task.id} />{dep.reason ? ` (${dep.reason})` : ''} </span>
              ))}</dd>
            </dl>
          ) : <p class="body"><RefText text={note.body} refs={note.refs} taskId={task.id} /></p>}
          {writable && <button type="button" class="small" onClick={start}>Edit “{note.title}”</button>}
        </details>
      )}
    </div>
  );
}

function AddNote({ taskId, choices }: { taskId: string; choices: any[] }) {
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
        <HashField label="Note body" value={body} onInput={setBody} items={choices} rows={3} id="new-note-body" />
        <button type="submit" disabled={busy}>Add note</button>
        <Refusal error={error} />
      </form>
    </details>
  );
}

function Comments({ taskId, itemId, comments, choices, writable, label }: { taskId: string; itemId?: string; comments: any[]; choices: any[]; writable: boolean; label: string }) {
  const [body, setBody] = useState('');
  const [run, error, busy] = useAction();
  const add = async (event: Event) => {
    event.preventDefault();
    if (await run(() => gql(ADD_COMMENT, { input: { taskId, item: itemId ?? null, body } }))) setBody('');
  };
  return (
    <section class="comments" aria-label={label}>
      {!itemId && <h3>Comments</h3>}
      <ul>
        {comments.map((comment) => (
          <li><RefText text={comment.body} refs={comment.refs} taskId={taskId} /> <span class="muted">· {when(comment.createdAt)}</span></li>
        ))}
      </ul>
      {writable && (
        <form onSubmit={add}>
          <HashField label={itemId ? `Comment on this item` : 'Comment on the task'} value={body} onInput={setBody} items={choices} id={`comment-${itemId ?? taskId}`} />
          <button type="submit" disabled={busy || !body.trim()}>Comment</button>
          <Refusal error={error} />
        </form>
      )}
    </section>
  );
}

/** Every change, newest first; each expands to the list at that point and what changed. */
export function History({ history, title = 'History', rowTitle }: { history: { totalCount: number; nodes: any[] }; title?: string; rowTitle?: (event: any) => string }) {
  const rows = [...history.nodes].reverse();
  return (
    <section class="history" aria-label={title}>
      <h3>{title} <span class="muted">({history.totalCount})</span></h3>
      <ol reversed start={rows.length}>
        {rows.map((event) => (
          <li>
            <details>
              <summary>{rowTitle ? rowTitle(event) : event.action.toLowerCase().replace(/_/g, ' ')} <span class="muted">· {when(event.at)}{event.sessionId ? ` · ${event.sessionId.slice(0, 8)}` : ''}</span></summary>
              <div class="cols">
                <div>
                  <h4>The list</h4>
                  <ol>{event.items.map((item: any) => <li class={item.state}><span class={`state ${item.state}`}>{STATE_LABEL[item.state]}</span> {item.text}</li>)}</ol>
                </div>
                <div>
                  <h4>What changed</h4>
                  {event.changes.length === 0 ? <p class="muted">Nothing in the list.</p> : (
                    <ul class="diff">{event.changes.map((change: any) => <li class={change.kind}>{describe(change)}</li>)}</ul>
                  )}
                </div>
              </div>
            </details>
          </li>
        ))}
      </ol>
    </section>
  );
}

function describe(change: any): string {
  const state = (value: string | null) => (value ? STATE_LABEL[value] ?? value : '');
  switch (change.kind) {
    case 'ADDED': return `+ ${change.text} (${state(change.to)})`;
    case 'REMOVED': return `− ${change.text}`;
    case 'RENAMED': return `✎ “${change.from}” → “${change.to}”`;
    case 'STATE': return `${change.text}: ${state(change.from)} → ${state(change.to)}`;
    case 'MOVED': return `↕ ${change.text}: #${change.from} → #${change.to}`;
    default: return `${change.kind} ${change.text}`;
  }
}
