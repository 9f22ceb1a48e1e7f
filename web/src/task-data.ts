import { useEffect, useRef, useState } from 'preact/hooks';
import { gql, token } from './api';
import { claimsNow } from './claims';
import { onReconnect, useSubscription } from './live';
import type { Comment, Item, Page, TaskHead } from './task-types';
import { COMMENT, COMMENT_PAGE, FIRST_PAGE, ITEM, PAGE, TASK_COMMENTS as COMMENTS, TASK_HEAD as HEAD, TASK_ITEMS as ITEMS } from './dashboard-documents.mjs';

/** What each live change carries: the task's small fields and its newest events' changed item ids (no list snapshots, no goal). */
const CHANGED = 'version state status updatedAt progress { done total blocked failed }';
const EVENTS = 'totalCount nodes { action changes { itemId } }';
const TASK_LIVE = `subscription($id: ID!) { taskChanged(id: $id) { taskId action task { ${CHANGED} history(first: 2, newestFirst: true) { ${EVENTS} } } } }`;
const RECENT_EVENTS = `query($id: ID!, $first: Int!) { task(id: $id) { history(first: $first, newestFirst: true) { ${EVENTS} } } }`;

export type { Item };

export interface TaskData {
  task: TaskHead | null;
  missing: boolean;
  error: string | null;
  items: Item[];
  totalItems: number;
  hasMore: boolean;
  comments: Comment[];
  /** All comments of the task and its items, and whether more than those loaded exist. */
  totalComments: number;
  hasMoreComments: boolean;
  loadMoreComments(): Promise<void>;
  historyCount: number;
  loadMore(): Promise<void>;
  loadAll(): Promise<void>;
  /** Loads pages until the item is on screen; false when the list does not hold it. */
  reach(itemId: string): Promise<boolean>;
  /** Bumped on every applied change, so open panels (history) know to look again. */
  changes: number;
}

/** The answers of TASK_ITEMS, TASK_HEAD and TASK_COMMENTS. */
interface ItemsAnswer { task: { items: Page<Item> } | null }
interface HeadAnswer { task: TaskHead | null }
interface CommentsAnswer { task: { comments: Page<Comment> } | null }
/** An event as a live change carries it: its action and the items it changed. */
interface ChangeEvent { action: string; changes: { itemId: string | null }[] }
/** What a live change carries of the task (CHANGED and its newest events). */
interface Changed { version: number; state: string; status: string; updatedAt: string; progress: TaskHead['progress']; history: { totalCount: number; nodes: ChangeEvent[] } }
interface TaskChanged { taskChanged: { taskId: string; action: string; task: Changed | null } | null }
/** A row read again after a change, with its comments. */
type RowAnswer = (Item & { comments: { nodes: Comment[] } }) | null;

/**
 * The first reads of a task opened by the page's address, sent as the bundle
 * starts (before the first render and its effects): the first rows wait on
 * one small request and nothing else, and the head follows it. Each is taken
 * once, by the view that opens that task.
 */
const early = new Map<string, Promise<unknown>>();

export function readTaskEarly(id: string): void {
  const send = (key: string, read: Promise<unknown>) => {
    // Handled here too, so a read no view takes (the address changed first) is not reported as an uncaught refusal.
    read.catch(() => undefined);
    early.set(key, read);
  };
  // The head (comments, notes) is asked once the first page has answered: on a busy server the two would share its time.
  const firstPage = gql<ItemsAnswer>(ITEMS, { id, deleted: false, first: FIRST_PAGE, after: null });
  send(`items ${id} false ${FIRST_PAGE}`, firstPage);
  send(`head ${id}`, firstPage.catch(() => undefined).then(() => gql<HeadAnswer>(HEAD, { id })));
}

/** The early read under this key, taken once; the key says which answer it is (items or head). */
function sentEarly<T>(key: string): Promise<T> | undefined {
  const sent = early.get(key);
  early.delete(key);
  return sent as Promise<T> | undefined;
}

/** Actions whose changes name every item they touched and move none: patched row by row. */
const IN_PLACE = new Set(['ITEM_STATE', 'ITEM_RENAMED', 'TASK_EDITED', 'COMMENT_ADDED']);
const NOTES = new Set(['NOTE_ADDED', 'NOTE_EDITED', 'NOTE_DELETED']);

interface ItemsShown { nodes: Item[]; total: number; cursor: string | null; more: boolean }
interface CommentPage { total: number; cursor: string | null; more: boolean }
const NO_ITEMS: ItemsShown = { nodes: [], total: 0, cursor: null, more: false };

/**
 * A task as the page shows it, kept current from its live events without
 * refetching the world: each change carries the task's few fields and its
 * newest events' item ids, and the page reads only the rows those name
 * (with their comments). Changes that renumber the list (added, deleted,
 * moved items) reread the pages already shown; an edit of the task or its
 * notes rereads the head; nothing else is read again.
 */
export function useTaskData(id: string, showDeleted: boolean): TaskData {
  const comments = useCommentPages(id);
  const head = useTaskHead(id, comments);
  const items = useItemPages(id, showDeleted, head.fail);
  const changes = useLiveChanges(id, showDeleted, head, items, comments);
  const { loadAll, reach } = useReachItem(items);
  return {
    task: head.task, missing: head.missing, error: head.error,
    items: items.shown.nodes, totalItems: items.shown.total, hasMore: items.shown.more,
    comments: comments.list, totalComments: comments.page.total, hasMoreComments: comments.page.more, loadMoreComments: comments.loadMore,
    historyCount: head.historyCount, loadMore: items.loadMore, loadAll, reach, changes,
  };
}

type Comments = ReturnType<typeof useCommentPages>;
type Head = ReturnType<typeof useTaskHead>;
type Items = ReturnType<typeof useItemPages>;

/** The task's head (its fields, notes, and how long its history is), read when it opens and again when it or its notes are edited. */
function useTaskHead(id: string, comments: Comments) {
  const [head, setHead] = useState<{ task: TaskHead | null; missing: boolean; error: string | null }>({ task: null, missing: false, error: null });
  const [historyCount, setHistoryCount] = useState(0);
  // The history length the page has applied, read by the next change before a render shows it.
  const known = useRef(0);
  const sawHistory = (count: number) => {
    known.current = count;
    setHistoryCount(count);
  };
  const load = async () => {
    const data = await (sentEarly<HeadAnswer>(`head ${id}`) ?? gql<HeadAnswer>(HEAD, { id }));
    if (!data.task) return setHead({ task: null, missing: true, error: null });
    sawHistory(data.task.history.totalCount);
    comments.fromHead(data.task.comments);
    setHead({ task: data.task, missing: false, error: null });
  };
  const fail = (error: Error) => setHead((old) => ({ ...old, error: error.message }));
  // A live change's fields land on the task shown, unless a newer version is already there.
  const patch = (changed: Changed) => {
    const { history: _history, ...fields } = changed;
    setHead((old) => ({ ...old, task: old.task && Number(changed.version) >= Number(old.task.version) ? { ...old.task, ...fields } : old.task }));
  };
  // Opening the task: its head (the first page is read beside it, by useItemPages).
  useEffect(() => {
    known.current = 0;
    setHead({ task: null, missing: false, error: null });
    void load().catch(fail);
  }, [id]);
  return { ...head, historyCount, known, sawHistory, load, fail, patch };
}

/** The list's rows a page at a time: the first page on open, further pages on demand, and the pages shown read again after a change. */
function useItemPages(id: string, showDeleted: boolean, fail: (error: Error) => void) {
  const [shown, setShown] = useState<ItemsShown>(NO_ITEMS);
  // `reading`: the list being read again (deleted items shown or hidden, another task), which "Show all" and a link to an item wait for.
  const state = useRef({ shown, loadingMore: null as Promise<void> | null, reading: Promise.resolve() });
  state.current.shown = shown;

  const read = async (count: number): Promise<ItemsShown> => {
    const nodes: Item[] = [];
    let after: string | null = null;
    let page: Page<Item> | undefined;
    do {
      const want: number = nodes.length === 0 ? Math.max(Math.min(count, PAGE), 1) : Math.min(PAGE, count - nodes.length);
      const answer: ItemsAnswer = await (after === null && sentEarly<ItemsAnswer>(`items ${id} ${showDeleted} ${want}`) || gql<ItemsAnswer>(ITEMS, { id, deleted: showDeleted, first: want, after }));
      page = answer.task?.items;
      if (!page) break;
      nodes.push(...page.nodes);
      after = page.pageInfo.endCursor;
    } while (page.pageInfo.hasNextPage && nodes.length < count);
    return { nodes, total: page?.totalCount ?? 0, cursor: after, more: Boolean(page?.pageInfo.hasNextPage) };
  };
  /** As many rows as are shown (at least the first page), read again. */
  const readShown = () => read(Math.max(FIRST_PAGE, state.current.shown.nodes.length));

  // Showing deleted items again keeps as many rows as were loaded; another task starts from its first page.
  const shownFor = useRef(id);
  useEffect(() => {
    const sameTask = shownFor.current === id;
    const count = sameTask ? Math.max(FIRST_PAGE, state.current.shown.nodes.length) : FIRST_PAGE;
    shownFor.current = id;
    // No further page of the list being replaced: "Show more" waits for the new one (a page read after its cursor would mix the two).
    if (!sameTask) setShown(NO_ITEMS);
    else if (state.current.shown.more) setShown((old) => ({ ...old, more: false }));
    state.current.reading = read(count).then((next) => { state.current.shown = next; setShown(next); }, fail);
  }, [id, showDeleted]);

  // One page read at a time: a scroll and a click asking together read the next page once.
  const loadMore = () => (state.current.loadingMore ??= readMore().finally(() => { state.current.loadingMore = null; }));
  const readMore = async () => {
    const current = state.current.shown;
    if (!current.more) return;
    const page = (await gql<ItemsAnswer>(ITEMS, { id, deleted: showDeleted, first: PAGE, after: current.cursor })).task?.items;
    // The list was read again meanwhile (a change renumbered it, deleted items shown): this page followed the old one.
    const now = state.current.shown;
    if (!page || now.cursor !== current.cursor) return;
    // Appended to the list as it is now, so a row patched live while the page was read keeps its patch.
    const next = { nodes: [...now.nodes, ...page.nodes], total: page.totalCount, cursor: page.pageInfo.endCursor, more: page.pageInfo.hasNextPage };
    state.current.shown = next;
    setShown(next);
  };
  return { shown, setShown, state, readShown, loadMore };
}

/** The task's and its items' comments, oldest first: the first page with the head, further pages on demand, read again after a change. */
function useCommentPages(id: string) {
  const [list, setList] = useState<Comment[]>([]);
  const [page, setPage] = useState<CommentPage>({ total: 0, cursor: null, more: false });
  const state = useRef({ list, page });
  state.current.list = list;
  state.current.page = page;

  const fromHead = (first: Page<Comment>) => {
    setList(first.nodes);
    setPage(pageOf(first));
  };
  // As many comments as are shown, read again a page at a time (a new one lands at the end, on the last page read).
  const refresh = async () => {
    const want = Math.max(COMMENT_PAGE, state.current.list.length);
    const nodes: Comment[] = [];
    let after: string | null = null;
    let read: Page<Comment> | undefined;
    do {
      read = (await gql<CommentsAnswer>(COMMENTS, { id, first: COMMENT_PAGE, after })).task?.comments;
      if (!read) return;
      nodes.push(...read.nodes);
      after = read.pageInfo.endCursor;
    } while (read.pageInfo.hasNextPage && nodes.length < want);
    setList(nodes);
    setPage(pageOf(read));
  };
  const loadMore = async () => {
    const current = state.current.page;
    if (!current.more) return;
    const read = (await gql<CommentsAnswer>(COMMENTS, { id, first: COMMENT_PAGE, after: current.cursor })).task?.comments;
    if (!read) return;
    const known = new Set(state.current.list.map((comment) => comment.id));
    const next = [...state.current.list, ...read.nodes.filter((comment) => !known.has(comment.id))];
    state.current.list = next;
    state.current.page = pageOf(read);
    setList(next);
    setPage(pageOf(read));
  };
  /** The comments of rows read again replace those rows' comments. */
  const replaceRows = (rows: Map<string, RowAnswer>) => setList((old) => {
    const kept = old.filter((comment) => !(comment.item && rows.has(comment.item.id)));
    const added = [...rows.values()].flatMap((row) => row?.comments.nodes ?? []);
    return [...kept, ...added].sort((a, b) => Number(a.id) - Number(b.id));
  });
  return { list, page, fromHead, refresh, loadMore, replaceRows };
}

/**
 * The task's live changes, applied one at a time in the order they came, and
 * everything read again after a reconnect or a new token. Returns a count
 * bumped on every applied change.
 */
function useLiveChanges(id: string, showDeleted: boolean, head: Head, items: Items, comments: Comments): number {
  const [changes, setChanges] = useState(0);
  const busy = useRef(Promise.resolve());

  const applyChange = async (changed: Changed | null | undefined) => {
    if (!changed) return head.load();
    const known = head.known.current;
    const count: number = changed.history.totalCount;
    head.patch(changed);
    if (count <= known) return;
    head.sawHistory(count);
    setChanges((n) => n + 1);
    // The events since the last one applied: carried by the change when few, else read (a long gap rereads everything shown).
    let fresh: ChangeEvent[] = changed.history.nodes.slice(0, count - known);
    if (count - known > fresh.length) {
      if (count - known > 200) return reloadAll();
      fresh = (await gql<{ task: { history: { nodes: ChangeEvent[] } } | null }>(RECENT_EVENTS, { id, first: count - known })).task?.history.nodes ?? [];
    }
    if (fresh.some((event) => event.action === 'TASK_EDITED' || NOTES.has(event.action))) await head.load();
    if (fresh.some((event) => !IN_PLACE.has(event.action) && !NOTES.has(event.action))) {
      items.setShown(await items.readShown());
      return comments.refresh();
    }
    if (fresh.some((event) => event.action === 'COMMENT_ADDED')) await comments.refresh();
    const named = new Set(fresh.flatMap((event) => event.changes.map((change) => change.itemId as string)));
    const shown = items.state.current.shown.nodes;
    // The items waiting for a changed one are read again too: whether they are ready follows its state.
    for (const item of shown) if (named.has(item.id)) for (const waiter of item.blocks) named.add(waiter.id);
    const touched = [...named].filter((itemId) => shown.some((item) => item.id === itemId));
    if (!touched.length) return;
    // One request for every touched row on screen: the row and its comments.
    const fields = touched.map((itemId, index) => `i${index}: item(id: "${itemId.replace(/\D/g, '')}") { ${ITEM} comments(first: 200) { nodes { ${COMMENT} } } }`);
    const rows = await gql<Record<string, RowAnswer>>(`{ ${fields.join(' ')} }`);
    const byId = new Map<string, RowAnswer>(touched.map((itemId, index) => [itemId, rows[`i${index}`]]));
    items.setShown((old) => ({ ...old, nodes: old.nodes.map((item) => { const row = byId.get(item.id); return row ? { ...item, ...strip(row) } : item; }) }));
    comments.replaceRows(byId);
  };
  // A renewal moves a claim's expiry and records no history: the claims on screen are read again.
  const renewed = async () => {
    const claims = await claimsNow(items.state.current.shown.nodes.filter((item) => item.claim).map((item) => item.id));
    items.setShown((old) => ({ ...old, nodes: old.nodes.map((item) => (claims.has(item.id) ? { ...item, claim: claims.get(item.id)! } : item)) }));
  };
  const onEvent = (data: TaskChanged | null | undefined) => {
    const work = data?.taskChanged?.action === 'CLAIM_RENEWED' ? renewed : () => applyChange(data?.taskChanged?.task);
    busy.current = busy.current.then(() => work().catch(head.fail));
  };
  useSubscription<TaskChanged>(TASK_LIVE, { id }, onEvent);

  async function reloadAll() {
    await head.load().then(() => items.readShown()).then(items.setShown, head.fail);
  }
  // After a reconnect (changes may have been missed) or a new token (the last read may have been refused): read it all again.
  useEffect(() => {
    const again = () => void reloadAll();
    const stops = [onReconnect(again), token.subscribe(again)];
    return () => stops.forEach((stop) => stop());
  }, [id, showDeleted]);
  return changes;
}

/**
 * "Show all" and a link to an item further down: pages are loaded until the
 * list ends or holds the item. Each step waits for a list being read again
 * first: asked for while deleted items were just shown, it would otherwise
 * see the old list's "no further page" and stop at its first page.
 */
function useReachItem(items: Items) {
  const { state, loadMore } = items;
  const loadAll = async () => {
    for (let i = 0; i < 25; i += 1) {
      await state.current.reading;
      if (!state.current.shown.more) return;
      await loadMore();
    }
  };
  const reach = async (itemId: string) => {
    for (let i = 0; i < 25; i += 1) {
      await state.current.reading;
      if (state.current.shown.nodes.some((item) => item.id === itemId)) return true;
      if (!state.current.shown.more) return false;
      await loadMore();
    }
    return false;
  };
  return { loadAll, reach };
}

function pageOf(page: Page<unknown>): CommentPage {
  return { total: page.totalCount, cursor: page.pageInfo.endCursor, more: page.pageInfo.hasNextPage };
}

function strip(row: NonNullable<RowAnswer>): Item {
  const { comments: _comments, ...item } = row;
  return item;
}
