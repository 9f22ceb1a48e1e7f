import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { canWrite, gql } from '../../api';
import { useSignal } from '../../signal';
import { markTaskSeen } from '../../since-looked';
import { stuckCount } from '../../states';
import { StateWords, presetOf, wordsFor } from '../../state-words';
import { useTaskData } from '../../task-data';
import { Loading, Progress, useTitle, when } from '../../widgets';
import { History } from '../history';
import { SteeringMarks, useTaskSteering } from '../../steering';
import { TaskEdit } from '../../task-edit';
import { sessionLabel } from '../../session-name';
import { MoreComments } from '../more-comments';
import { MoreOnScroll } from '../more-rows';
import { AgentView } from '../plan-view';
import type { ItemWithComments } from './types';
import { NO_NOTES, sameChoices, sameList } from './choices';
import type { Choice } from './choices';
import { Goal } from './goal';
import { Checklist } from './checklist';
import { AddItems } from './add-items';
import { Notes } from './notes';
import { Comments } from './comments';
import type { Comment } from '../../task-types';

/** A task as a checklist, with its goal, notes and briefs, comments and history; live, a changed row at a time. */
export function TaskView({ id, focusItem }: { id: string; focusItem: string | null }) {
  const [showDeleted, setShowDeleted] = useState(false);
  const data = useTaskData(id, showDeleted);
  const writable = useSignal(canWrite);
  const t = data.task;
  useTitle(t ? `${t.title} · task` : data.missing ? 'No such task' : 'Task');
  // Open, the task is seen as it is, live changes included: its unread marker clears in every list (and stays clear on leaving).
  useEffect(() => {
    markTaskSeen(id);
    return () => markTaskSeen(id);
  }, [id]);
  useEffect(() => { if (t?.updatedAt) markTaskSeen(id, Math.max(Date.now(), Date.parse(t.updatedAt))); }, [id, t?.updatedAt]);
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
      const item = (await gql<{ item: { deleted: boolean; task: { id: string } } | null }>('query($id: ID!) { item(id: $id) { deleted task { id } } }', { id: focusItem })).item;
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
    const byItem = new Map<string, Comment[]>();
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
  const commentsKept = useRef<Comment[]>([]);
  const taskComments = useMemo(() => (commentsKept.current = sameList(commentsKept.current, data.comments.filter((comment) => !comment.item))), [data.comments]);
  // The # menu's "load every item", the same function for the page's life (the list's own changes with every page).
  const loadAllNow = useRef(data.loadAll);
  loadAllNow.current = data.loadAll;
  const loadAll = useRef(() => loadAllNow.current()).current;
  const onMenu = data.hasMore ? loadAll : undefined;
  // The version an edit starts from: read when the edit starts, so rows need not re-render when it moves on.
  const version = useRef(0);
  version.current = t?.version ?? 0;
  // Whether the agent has seen a person's change to its plan or claimed item, per row.
  const steering = useTaskSteering(t?.id ?? null, t?.session?.id ?? null, data.items.some((item) => item.claim), data.changes);
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
    <SteeringMarks.Provider value={steering}>
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
    </SteeringMarks.Provider>
    </StateWords.Provider>
  );
}
