import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { canWrite, gql } from '../api';
import { Dependencies, ItemCoordination } from '../claims';
import { Conflict, saveAtVersion } from '../conflicts';
import { HashField } from '../hash-field';
import { memo, sameProps } from '../memo';
import { RefText } from '../refs';
import { useSignal } from '../signal';
import { SAYS_WHY, StateMenu } from '../state-menu';
import { STATES, isStuck, noteKind, stuckCount } from '../states';
import { StateWords, presetOf, useStateWords, wordsFor } from '../state-words';
import { useTaskData, type Item } from '../task-data';
import { Loading, MoreText, Progress, Refusal, useAction, useTitle, when } from '../widgets';
import { History } from './history';
import { RestoreButton, deleteWithUndo } from '../undo';
import { TaskEdit } from '../task-edit';
import { sessionLabel } from '../session-name';
import { MoreComments } from './more-comments';
import { MoreOnScroll } from './more-rows';
import { announce } from '../shortcuts';
import { AgentView } from './plan-view';

const UPDATE_ITEM = 'mutation($input: UpdateItemInput!) { updateItem(input: $input) { id state text } }';
const ADD_ITEMS = 'mutation($input: AddItemsInput!) { addItems(input: $input) { items { id } } }';
const MOVE_ITEM = 'mutation($input: MoveItemInput!) { moveItem(input: $input) { id } }';
const ADD_COMMENT = 'mutation($input: AddCommentInput!) { addComment(input: $input) { id } }';
const EDIT_TASK = 'mutation($input: EditTaskInput!) { editTask(input: $input) { id version } }';
const EDIT_NOTE = 'mutation($input: EditTaskNoteInput!) { editTaskNote(input: $input) { id } }';
const ADD_NOTE = 'mutation($input: AddTaskNoteInput!) { addTaskNote(input: $input) { id } }';
const SEARCH_NOTES = 'query($query: String!) { search(query: $query, kind: NOTE, first: 8) { nodes { id title domain } } }';
const CURRENT_GOAL = 'query($id: ID!) { task(id: $id) { version goal } }';
const CURRENT_ITEM = 'query($id: ID!) { item(id: $id) { text state task { version } } }';

type ItemWithComments = Item & { comments: any[]; source: Item };

/** A task as a checklist, with its goal, notes and briefs, comments and history; live, a changed row at a time. */
export function TaskView({ id, focusItem }: { id: string; focusItem: string | null }) {
  const [showDeleted, setShowDeleted] = useState(false);
  const data = useTaskData(id, showDeleted);
  const writable = useSignal(canWrite);
  const t = data.task;
  useTitle(t ? `${t.title} · task` : data.missing ? 'No such task' : 'Task');
  // A link to an item not on screen yet: load the pages that hold it (or show deleted ones, if it is deleted).
  const [notHere, setNotHere] = useState<string | null>(null);
  useEffect(() => {
    if (!focusItem || !t || data.items.length === 0) return;
    let current = true;
    void data.reach(focusItem).then(async (found) => {
      if (!current) return;
      if (found) {
        setNotHere(null);
        requestAnimationFrame(() => document.getElementById(`item-${focusItem}`)?.scrollIntoView({ block: 'center' }));
        return;
      }
      const item = (await gql('query($id: ID!) { item(id: $id) { deleted task { id } } }', { id: focusItem })).item;
      if (item?.deleted && item.task.id === id && !showDeleted) setShowDeleted(true);
      else setNotHere(item ? (item.task.id === id ? null : item.task.id) : '');
    });
    return () => { current = false; };
  }, [focusItem, t?.id, data.items.length > 0, showDeleted]);
  // Marks for the browser tests' figures: when the first rows are on screen.
  useEffect(() => {
    if (data.items.length && !performance.getEntriesByName('items-first-rows').length) performance.mark('items-first-rows');
  }, [data.items.length > 0]);

  // Rows keep their identity while their item and comments do, so a change to one row re-renders that row only.
  const rowCache = useRef(new Map<string, ItemWithComments>());
  const items = useMemo(() => {
    const byItem = new Map<string, any[]>();
    for (const comment of data.comments) if (comment.item) byItem.set(comment.item.id, [...(byItem.get(comment.item.id) ?? []), comment]);
    const next = new Map<string, ItemWithComments>();
    const rows = data.items.map((item) => {
      const comments = byItem.get(item.id) ?? [];
      const old = rowCache.current.get(item.id);
      const same = old && old.source === item && old.comments.length === comments.length && old.comments.every((comment, index) => comment === comments[index]);
      const row = same ? old : { ...item, source: item, comments };
      next.set(item.id, row);
      return row;
    });
    rowCache.current = next;
    return rows;
  }, [data.items, data.comments]);
  // What a change leaves as it was keeps its identity, so the goal, notes and comments beside the list skip a change to a row's state.
  const choicesKept = useRef<Choice[]>([]);
  const choices = useMemo(() => (choicesKept.current = sameChoices(choicesKept.current, items)), [items]);
  const commentsKept = useRef<any[]>([]);
  const taskComments = useMemo(() => (commentsKept.current = sameList(commentsKept.current, data.comments.filter((comment: any) => !comment.item))), [data.comments]);
  // The # menu's "load every item", the same function for the page's life (the list's own changes with every page).
  const loadAllNow = useRef(data.loadAll);
  loadAllNow.current = data.loadAll;
  const loadAll = useRef(() => loadAllNow.current()).current;
  const onMenu = data.hasMore ? loadAll : undefined;
  // The version an edit starts from: read when the edit starts, so rows need not re-render when it moves on.
  const version = useRef(0);
  version.current = t?.version ?? 0;
  const rulesKey = JSON.stringify(t?.session?.rules ?? null);
  const rules = useMemo(() => t?.session?.rules ?? null, [rulesKey]);
  if (data.missing) return <p role="alert">There is no task {id}. It may have been deleted, or the link is mistyped: open its domain to find it.</p>;
  // The first rows need only their own small page: they show while the task's head (comments, notes) is still on its way,
  // in the places they keep once it comes, so its arrival adds the parts around them and re-creates no row.
  if (!t && data.items.length === 0) return <Loading error={data.error} />;
  const stuck = t ? stuckCount(t.progress) : 0;
  const preset = presetOf(t?.session);
  return (
    <StateWords.Provider value={wordsFor(preset)}>
    <article class="task" aria-labelledby="task-title">
      <p class="crumbs">{t?.domain ? <a href={`#/domains/${t.domain}`}>{t.domain}</a> : t?.session ? <>Plan of <a href={`#/sessions/${t.session.id}`}>{sessionLabel(t.session)}</a></> : null}</p>
      <h2 id="task-title" tabIndex={-1}>{t ? t.title : 'Loading the task…'}</h2>
      {t && (
        <p class="meta">
          <span class={`state ${t.state}`}>{t.state.toLowerCase()}</span>{' '}
          {stuck > 0 && <span class="state stuck">stuck · {stuck}</span>}{' '}
          <Progress done={t.progress.done} total={t.progress.total} label={`${t.progress.done} of ${t.progress.total} items done`} />{' '}
          <span class="muted">updated <time dateTime={t.updatedAt}>{when(t.updatedAt)}</time> · version {t.version}</span>
        </p>
      )}
      {t && <TaskEdit task={t} writable={writable} />}
      {rules?.planOnce && writable && (
        <p class="notice" role="note">This plan is locked for its agent (written once, then worked). You can still change it here: your edits are recorded as a person’s edit in its history, and the agent sees them on its next read.</p>
      )}
      {t && <Goal taskId={t.id} goal={t.goal} goalRefs={t.goalRefs} version={version} choices={choices} writable={writable} />}
      <section aria-labelledby="checklist-heading">
        <h3 id="checklist-heading">Checklist <span class="muted">({data.totalItems}{showDeleted ? ' with deleted' : ''})</span></h3>
        <label class="inline"><input type="checkbox" checked={showDeleted} onChange={(event) => setShowDeleted(event.currentTarget.checked)} /> Show deleted items</label>
        {t && preset && <AgentView taskId={t.id} preset={preset} version={t.version} />}
        {notHere !== null && <p class="refusal" role="alert">{notHere ? <>That item belongs to <a href={`#/task/${notHere}?item=${focusItem}`}>another task</a>.</> : `There is no item ${focusItem}.`}</p>}
        <Checklist taskId={id} plan={Boolean(t?.session)} notes={t?.notes ?? NO_NOTES} items={items} choices={choices} version={version} writable={writable} focusItem={focusItem} rules={rules} />
        {data.hasMore && (
          <p><MoreOnScroll onMore={data.loadMore} /><button type="button" onClick={() => void data.loadMore()}>Show more items ({items.length} of {data.totalItems} shown)</button>{' '}
            <button type="button" onClick={() => void data.loadAll()}>Show all</button></p>
        )}
        {t && writable && <AddItems taskId={t.id} version={t.version} />}
      </section>
      {t && <Notes taskId={t.id} notes={t.notes} choices={choices} writable={writable} onMenu={onMenu} />}
      {t && <Comments taskId={t.id} comments={taskComments} choices={choices} writable={writable} label="Comments on the task" onMenu={onMenu} />}
      {data.hasMoreComments && <MoreComments shown={data.comments.length} total={data.totalComments} onMore={data.loadMoreComments} />}
      {t && <History taskId={t.id} count={data.historyCount} changes={data.changes} />}
    </article>
    </StateWords.Provider>
  );
}

interface Choice { id: string; number: number | null; text: string }
const NO_NOTES = { totalCount: 0, nodes: [] };

/** The live items as the # menu offers them: the list before when no id, number or text moved. */
function sameChoices(before: Choice[], items: readonly Item[]): Choice[] {
  const live = items.filter((item) => !item.deleted);
  const same = live.length === before.length && live.every((item, index) => item.id === before[index].id && item.number === before[index].number && item.text === before[index].text);
  return same ? before : live.map((item) => ({ id: item.id, number: item.number, text: item.text }));
}

function sameList<T>(before: T[], next: T[]): T[] {
  return next.length === before.length && next.every((value, index) => value === before[index]) ? before : next;
}

interface GoalProps { taskId: string; goal: string; goalRefs: any[]; version: { current: number }; choices: Choice[]; writable: boolean }
/** Re-rendered when the goal, its links or the # choices change, not on every change of the task. */
const Goal = memo(GoalView, sameProps);

function GoalView({ taskId, goal: saved, goalRefs, version, choices, writable }: GoalProps) {
  const task = { id: taskId, goal: saved, goalRefs };
  const [editing, setEditing] = useState<{ version: number; value: string } | null>(null);
  const [goal, setGoal] = useState(task.goal);
  const [conflict, setConflict] = useState<{ theirs: string; version: number } | null>(null);
  const [run, error, busy] = useAction();
  const save = async (base: { version: number; value: string }) => {
    await run(async () => {
      const outcome = await saveAtVersion({
        base,
        send: (version) => gql(EDIT_TASK, { input: { id: task.id, goal, expectedVersion: version } }),
        current: async () => { const now = (await gql(CURRENT_GOAL, { id: task.id })).task; return { version: now.version, value: now.goal }; },
      });
      if (outcome.saved) { setEditing(null); setConflict(null); } else setConflict({ theirs: outcome.theirs, version: outcome.version });
    });
  };
  return (
    <section class="goal" aria-label="The goal">
      {editing ? (
        <form onSubmit={(event) => { event.preventDefault(); void save(editing); }}>
          <HashField label="Goal" value={goal} onInput={setGoal} items={choices} rows={4} />
          {conflict ? (
            <Conflict what="The goal" mine={goal} theirs={conflict.theirs}
              onMine={() => void save({ version: conflict.version, value: conflict.theirs })}
              onTheirs={() => { setConflict(null); setEditing(null); }} />
          ) : <><button type="submit" disabled={busy}>Save goal</button> <button type="button" onClick={() => setEditing(null)}>Cancel</button></>}
          <Refusal error={error} />
        </form>
      ) : (
        <div><strong>Goal:</strong> <MoreText><RefText text={task.goal} refs={task.goalRefs} taskId={task.id} /></MoreText>{' '}
          {writable && <button type="button" class="small" onClick={() => { setGoal(task.goal); setEditing({ version: version.current, value: task.goal }); }}>Edit goal</button>}</div>
      )}
    </section>
  );
}

interface ListProps { taskId: string; plan: boolean; notes: any; items: ItemWithComments[]; choices: any[]; version: { current: number }; writable: boolean; focusItem: string | null; rules: { noteRequiredFor: string[]; planOnce: boolean } | null }
/** What a row asks of its list; the same object for the list's life, reading the list as it is now. */
interface RowActions { move(item: Item, offset: -1 | 1): void; dragStart(item: Item): void; drop(item: Item): void; dragEnd(): void }

/** Skips a change that leaves every row, the rules and the briefs as they were (the task's version and counts moving on). */
const Checklist = memo(ChecklistView, sameProps);

function ChecklistView(props: ListProps) {
  const [run, error] = useAction();
  const latest = useRef({ live: [] as Item[], dragging: null as string | null });
  latest.current.live = props.items.filter((item) => !item.deleted);
  const actions = useRef<RowActions>({
    move: (item, offset) => {
      const liveItems = latest.current.live;
      const index = liveItems.findIndex((other) => other.id === item.id);
      const target = index + offset;
      if (target < 0 || target >= liveItems.length) return;
      // After the item that will precede it: the one above the target place, or first.
      const after = offset === -1 ? (target === 0 ? null : liveItems[target - 1].id) : liveItems[target].id;
      void run(() => gql(MOVE_ITEM, { input: { id: item.id, after } })).then((moved) => {
        requestAnimationFrame(() => document.getElementById(`state-${item.id}`)?.focus());
        // A sighted person sees the row move; a screen reader hears where it went.
        if (moved) announce(`Moved “${item.text}” ${offset === -1 ? 'up' : 'down'} to place ${target + 1} of ${liveItems.length}`);
      });
    },
    dragStart: (item) => { latest.current.dragging = item.id; },
    dragEnd: () => { latest.current.dragging = null; },
    drop: (target) => {
      const { dragging, live: liveItems } = latest.current;
      latest.current.dragging = null;
      if (!dragging || dragging === target.id) return;
      const from = liveItems.findIndex((item) => item.id === dragging);
      const to = liveItems.findIndex((item) => item.id === target.id);
      const after = from < to ? target.id : to === 0 ? null : liveItems[to - 1].id;
      const text = liveItems[from]?.text ?? 'the item';
      void run(() => gql(MOVE_ITEM, { input: { id: dragging, after } })).then((moved) => moved && announce(`Moved “${text}” to place ${to + 1} of ${liveItems.length}`));
    },
  }).current;
  // A row's details show the task's briefs on it: rows re-render when the notes do, not on every change of the task.
  const notes = props.notes;
  return (
    <>
      <Refusal error={error} />
      <ol class="checklist" aria-label="Items">
        {props.items.map((item) => (
          <ItemRow key={item.id} item={item} taskId={props.taskId} plan={props.plan} notes={notes} choices={props.choices} version={props.version}
            writable={props.writable} focused={props.focusItem === item.id} rules={props.rules} actions={actions} />
        ))}
      </ol>
    </>
  );
}

interface RowProps { item: ItemWithComments; taskId: string; plan: boolean; notes: any; choices: any[]; version: { current: number }; writable: boolean; focused: boolean; rules: ListProps['rules']; actions: RowActions }

/** Re-rendered when its own item, its comments, the rules, or (while open) the briefs and # choices change. */
const ItemRow = memo(ItemRowView, (before: RowProps, after: RowProps) =>
  before.item === after.item && before.writable === after.writable && before.focused === after.focused && before.rules === after.rules &&
  before.notes === after.notes && before.choices.length === after.choices.length);

function ItemRowView(props: RowProps) {
  const { item, writable } = props;
  // The state words of the set this plan follows (the knowledge base's for a domain's task).
  const STATE_LABEL = useStateWords();
  const focusItem = props.focused ? item.id : null;
  const [renaming, setRenaming] = useState<{ version: number; value: string } | null>(null);
  const [text, setText] = useState(item.text);
  const [open, setOpen] = useState(props.focused);
  // A state with its reason, asked inline before anything is sent: in the rule's words when the plan's rules need one, else optional
  // (Blocked, Failed and Dropped ask, so their row can say why; "With a reason…" asks for any state, picked in the form).
  const [asking, setAsking] = useState<{ state: string; version: number; from: string; pick?: boolean } | null>(null);
  const [note, setNote] = useState('');
  const [conflict, setConflict] = useState<{ what: 'state' | 'text'; mine: string; theirs: string; version: number } | null>(null);
  const [run, error, busy] = useAction();
  useEffect(() => { if (props.focused) setOpen(true); }, [props.focused]);
  const current = async () => {
    const now = (await gql(CURRENT_ITEM, { id: item.id })).item;
    return { version: now.task.version, value: now };
  };
  const sendState = (state: string, base: { version: number; from: string }, comment?: string) => void run(async () => {
    const outcome = await saveAtVersion({
      base: { version: base.version, value: base.from },
      send: (version) => gql(UPDATE_ITEM, { input: { id: item.id, state, expectedVersion: version, ...(comment ? { comment } : {}) } }),
      current: async () => { const now = await current(); return { version: now.version, value: now.value.state }; },
    });
    if (outcome.saved) { setAsking(null); setNote(''); setConflict(null); } else setConflict({ what: 'state', mine: state, theirs: outcome.theirs, version: outcome.version });
  });
  const setState = (state: string) => {
    setConflict(null);
    const base = { version: props.version.current, from: item.state };
    if (props.rules?.noteRequiredFor.includes(state) || SAYS_WHY.has(state)) setAsking({ state, ...base });
    else sendState(state, base);
  };
  const withReason = () => { setConflict(null); setAsking({ state: item.state, version: props.version.current, from: item.state, pick: true }); };
  // Focus goes to the form once, when it opens: to its state when one is picked there, else to the reason.
  const askingOpen = asking !== null;
  useEffect(() => {
    if (askingOpen) document.getElementById(`${asking?.pick ? 'reason-state' : 'reason'}-${item.id}`)?.focus();
  }, [askingOpen]);
  const required = asking ? Boolean(props.rules?.noteRequiredFor.includes(asking.state)) : false;
  const rename = (base: { version: number; value: string }) => void run(async () => {
    const outcome = await saveAtVersion({
      base,
      send: (version) => gql(UPDATE_ITEM, { input: { id: item.id, text, expectedVersion: version } }),
      current: async () => { const now = await current(); return { version: now.version, value: now.value.text }; },
    });
    if (outcome.saved) { setRenaming(null); setConflict(null); } else setConflict({ what: 'text', mine: text, theirs: outcome.theirs, version: outcome.version });
  });
  const onKeyDown = (event: KeyboardEvent) => {
    if (!writable || !event.altKey) return;
    if (event.key === 'ArrowUp') { event.preventDefault(); props.actions.move(item, -1); }
    if (event.key === 'ArrowDown') { event.preventDefault(); props.actions.move(item, 1); }
  };
  const dragProps = writable && !item.deleted ? {
    draggable: true,
    onDragStart: (event: DragEvent) => { props.actions.dragStart(item); event.dataTransfer?.setData('text/plain', item.id); },
    onDragOver: (event: DragEvent) => event.preventDefault(),
    onDrop: (event: DragEvent) => { event.preventDefault(); props.actions.drop(item); },
    onDragEnd: () => props.actions.dragEnd(),
  } : {};
  const stuck = isStuck(item.state) && !item.deleted;
  const commentCount = item.comments.length;
  return (
    <li id={`item-${item.id}`} class={`item ${item.state} ${stuck ? 'stuck' : ''} ${item.deleted ? 'deleted' : ''} ${focusItem ? 'focused' : ''}`} onKeyDown={onKeyDown} {...dragProps}>
      <div class="row">
        {writable && !item.deleted && <span class="handle" aria-hidden="true" title="Drag to reorder">⠿</span>}
        <span class="num">{item.number ?? '–'}.</span>
        {writable && !item.deleted ? (
          <StateMenu id={`state-${item.id}`} label={item.text} value={asking?.state ?? item.state} words={STATE_LABEL} choose={setState} withReason={withReason} />
        ) : (
          <span class={`state ${item.state}`} aria-label={`${item.text}: ${STATE_LABEL[item.state]}`}>{STATE_LABEL[item.state]}</span>
        )}
        {renaming ? (
          <form class="rename" onSubmit={(event) => { event.preventDefault(); rename(renaming); }}>
            <label><span class="sr">New text for “{item.text}”</span>
              <input value={text} maxLength={props.plan ? 1000 : 80} onInput={(event) => setText(event.currentTarget.value)} onKeyDown={(event) => event.key === 'Escape' && setRenaming(null)} ref={(el) => el?.focus()} />
            </label>
            <button type="submit" disabled={busy}>Save</button> <button type="button" onClick={() => { setRenaming(null); setConflict(null); }}>Cancel</button>
          </form>
        ) : (
          <span class="text">{item.deleted ? <s>{item.text}</s> : item.text}{item.deleted && <span class="muted"> (deleted)</span>}</span>
        )}
        {stuck && <span class="stuck-label">Stuck — {STATE_LABEL[item.state].toLowerCase()}{item.note ? `: ${item.note}` : ' (no reason given)'}</span>}
        {item.state === 'DROPPED' && !item.deleted && <span class="note-line muted">Dropped — {item.note || '(no reason given)'}</span>}
        {item.note && !stuck && item.state !== 'DROPPED' && <span class="note-line muted">— {item.note}</span>}
        <ItemCoordination item={item} />
        <span class="actions">
          <button type="button" class="small" aria-expanded={open} onClick={() => setOpen(!open)} aria-label={`Details${commentCount ? ` · ${commentCount}` : ''} of “${item.text}”`}
            title={commentCount ? `${commentCount} comments` : undefined}>
            Details{commentCount ? ` · ${commentCount}` : ''}
          </button>
          {writable && !item.deleted && !renaming && (
            <>
              <button type="button" class="small" onClick={() => { setText(item.text); setRenaming({ version: props.version.current, value: item.text }); }} aria-label={`Rename “${item.text}”`}>Rename</button>
              <button type="button" class="small" onClick={() => props.actions.move(item, -1)} aria-label={`Move “${item.text}” up`}>↑</button>
              <button type="button" class="small" onClick={() => props.actions.move(item, 1)} aria-label={`Move “${item.text}” down`}>↓</button>
              <button type="button" class="small danger" onClick={() => void run(() => deleteWithUndo(item))} aria-label={`Delete “${item.text}”`}>Delete</button>
            </>
          )}
          {writable && item.deleted && <RestoreButton item={item} />}
        </span>
      </div>
      {asking && (
        <form class="rule-note" onSubmit={(event) => { event.preventDefault(); if (!required || note.trim()) sendState(asking.state, asking, note.trim() || undefined); }}
          onKeyDown={(event) => { if (event.key === 'Escape') { event.stopPropagation(); setAsking(null); setNote(''); document.getElementById(`state-${item.id}`)?.focus(); } }}>
          {asking.pick && (
            <label><span>New state of “{item.text}”</span>
              <select id={`reason-state-${item.id}`} value={asking.state} onChange={(event) => setAsking({ ...asking, state: event.currentTarget.value })}>
                {STATES.map((state) => <option value={state}>{STATE_LABEL[state]}</option>)}
              </select></label>
          )}
          <label><span>{!required
            ? `Why is “${item.text}” ${STATE_LABEL[asking.state]}? (optional; the row shows it)`
            : noteKind(asking.state) === 'validation'
            ? `This plan’s rules need a validation to set “${item.text}” ${STATE_LABEL[asking.state]}: what was checked?`
            : `This plan’s rules need a reason to set “${item.text}” ${STATE_LABEL[asking.state]}: why?`}</span>
            <textarea rows={2} value={note} onInput={(event) => setNote(event.currentTarget.value)} id={`reason-${item.id}`} />
          </label>
          <button type="submit" disabled={busy || (required && !note.trim()) || (asking.state === item.state && !note.trim())}>Set {STATE_LABEL[asking.state]}</button>{' '}
          <button type="button" onClick={() => { setAsking(null); setNote(''); }}>Cancel</button>
        </form>
      )}
      {conflict && (
        <Conflict what={conflict.what === 'state' ? `The state of “${item.text}”` : `The text of “${item.text}”`}
          mine={conflict.what === 'state' ? STATE_LABEL[conflict.mine] : conflict.mine}
          theirs={conflict.what === 'state' ? STATE_LABEL[conflict.theirs] : conflict.theirs}
          onMine={() => conflict.what === 'state'
            ? sendState(conflict.mine, { version: conflict.version, from: conflict.theirs }, asking ? note.trim() : undefined)
            : rename({ version: conflict.version, value: conflict.theirs })}
          onTheirs={() => { setConflict(null); setRenaming(null); setAsking(null); }} />
      )}
      <Refusal error={error} />
      {open && <ItemDetails item={item} taskId={props.taskId} notes={props.notes} choices={props.choices} writable={writable} />}
    </li>
  );
}

function ItemDetails({ item, taskId, notes, choices, writable }: { item: ItemWithComments; taskId: string; notes: any; choices: any[]; writable: boolean }) {
  const task = { id: taskId };
  const briefs = notes.nodes.filter((note: any) => note.items.some((briefed: any) => briefed.id === item.id));
  return (
    <div class="details">
      {item.related.length > 0 && (
        <p>Linked: {item.related.map((memory: any) => <a class="chip" href={memory.kind === 'TASK' ? `#/task/${memory.id}` : `#/domains/${memory.domain}?note=${memory.id}`}>{memory.title}</a>)}</p>
      )}
      <Dependencies item={item} taskId={taskId} />
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

function AddItems({ taskId, version }: { taskId: string; version: number }) {
  const [text, setText] = useState('');
  const [run, error, busy] = useAction();
  const add = async (event: Event) => {
    event.preventDefault();
    const items = text.split('\n').map((line) => line.trim()).filter(Boolean);
    // Appending cannot overwrite anyone's change: sent at the version seen, and again at the current one if the task moved on meanwhile.
    const send = () => saveAtVersion({
      base: { version, value: 0 },
      send: (expectedVersion) => gql(ADD_ITEMS, { input: { taskId, items, expectedVersion } }),
      current: async () => ({ version: (await gql('query($id: ID!) { task(id: $id) { version } }', { id: taskId })).task.version, value: 0 }),
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

const BRIEF_FIELDS = [['goal', 'Goal'], ['context', 'Context'], ['steps', 'Steps'], ['pitfalls', 'Pitfalls'], ['doneWhen', 'Done when'], ['extraInfo', 'Extra info']] as const;

/** Re-rendered when the notes or the # choices change. */
const Notes = memo(NotesView, sameProps);

function NotesView({ taskId, notes, choices, writable, onMenu }: { taskId: string; notes: any; choices: any[]; writable: boolean; onMenu?: () => void }) {
  const task = useMemo(() => ({ id: taskId, notes }), [taskId, notes]);
  const wholeTask = task.notes.nodes.filter((note: any) => note.items.length === 0);
  const briefs = task.notes.nodes.filter((note: any) => note.items.length > 0);
  return (
    <section aria-labelledby="notes-heading">
      <h3 id="notes-heading">Notes and briefs</h3>
      {task.notes.totalCount === 0 && <p class="muted">No notes on this task.</p>}
      {[...wholeTask, ...briefs].map((note: any) => <TaskNote note={note} task={task} choices={choices} writable={writable} />)}
      {writable && <AddNote taskId={task.id} choices={choices} onMenu={onMenu} />}
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
          ) : <div class="body"><MoreText><RefText text={note.body} refs={note.refs} taskId={task.id} /></MoreText></div>}
          {writable && <button type="button" class="small" onClick={start}>Edit “{note.title}”</button>}
        </details>
      )}
    </div>
  );
}

function AddNote({ taskId, choices, onMenu }: { taskId: string; choices: any[]; onMenu?: () => void }) {
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

/** Re-rendered when its comments or the # choices change. */
const Comments = memo(CommentsView, sameProps);

function CommentsView({ taskId, itemId, comments, choices, writable, label, onMenu }: { taskId: string; itemId?: string; comments: any[]; choices: any[]; writable: boolean; label: string; onMenu?: () => void }) {
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
          <li><MoreText><RefText text={comment.body} refs={comment.refs} taskId={taskId} /></MoreText> <span class="muted">· {when(comment.createdAt)}</span></li>
        ))}
      </ul>
      {writable && (
        <form onSubmit={add}>
          <HashField label={itemId ? `Comment on this item` : 'Comment on the task'} value={body} onInput={setBody} items={choices} id={`comment-${itemId ?? taskId}`} onMenu={onMenu} />
          <button type="submit" disabled={busy || !body.trim()}>Comment</button>
          <Refusal error={error} />
        </form>
      )}
    </section>
  );
}

