import { useEffect, useRef, useState } from 'preact/hooks';
import { gql, token } from './api';
import { claimsNow, type ItemClaim } from './claims';
import { onReconnect, useSubscription } from './live';
import { COMMENT, COMMENT_PAGE, FIRST_PAGE, ITEM, PAGE, TASK_COMMENTS as COMMENTS, TASK_HEAD as HEAD, TASK_ITEMS as ITEMS } from './dashboard-documents.mjs';

/** What each live change carries: the task's small fields and its newest events' changed item ids (no list snapshots, no goal). */
const CHANGED = 'version state status updatedAt progress { done total blocked failed }';
const EVENTS = 'totalCount nodes { action changes { itemId } }';
const TASK_LIVE = `subscription($id: ID!) { taskChanged(id: $id) { taskId action task { ${CHANGED} history(first: 2, newestFirst: true) { ${EVENTS} } } } }`;
const RECENT_EVENTS = `query($id: ID!, $first: Int!) { task(id: $id) { history(first: $first, newestFirst: true) { ${EVENTS} } } }`;

export interface Item extends ItemClaim { id: string; number: number | null; text: string; state: string; deleted: boolean; note: string | null; added: boolean; related: any[] }
export interface TaskData {
  task: any | null;
  missing: boolean;
  error: string | null;
  items: Item[];
  totalItems: number;
  hasMore: boolean;
  comments: any[];
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

/**
 * The first reads of a task opened by the page's address, sent as the bundle
 * starts (before the first render and its effects): the first rows wait on
 * one small request and nothing else, and the head follows it. Each is taken
 * once, by the view that opens that task.
 */
const early = new Map<string, Promise<any>>();

export function readTaskEarly(id: string): void {
  const send = (key: string, read: Promise<any>) => {
    // Handled here too, so a read no view takes (the address changed first) is not reported as an uncaught refusal.
    read.catch(() => undefined);
    early.set(key, read);
  };
  // The head (comments, notes) is asked once the first page has answered: on a busy server the two would share its time.
  const firstPage = gql(ITEMS, { id, deleted: false, first: FIRST_PAGE, after: null });
  send(`items ${id} false ${FIRST_PAGE}`, firstPage);
  send(`head ${id}`, firstPage.catch(() => undefined).then(() => gql(HEAD, { id })));
}

function sentEarly(key: string): Promise<any> | undefined {
  const sent = early.get(key);
  early.delete(key);
  return sent;
}

/** Actions whose changes name every item they touched and move none: patched row by row. */
const IN_PLACE = new Set(['ITEM_STATE', 'ITEM_RENAMED', 'TASK_EDITED', 'COMMENT_ADDED']);
const NOTES = new Set(['NOTE_ADDED', 'NOTE_EDITED', 'NOTE_DELETED']);

/**
 * A task as the page shows it, kept current from its live events without
 * refetching the world: each change carries the task's few fields and its
 * newest events' item ids, and the page reads only the rows those name
 * (with their comments). Changes that renumber the list (added, deleted,
 * moved items) reread the pages already shown; an edit of the task or its
 * notes rereads the head; nothing else is read again.
 */
export function useTaskData(id: string, showDeleted: boolean): TaskData {
  const [head, setHead] = useState<{ task: any | null; missing: boolean; error: string | null }>({ task: null, missing: false, error: null });
  const [items, setItems] = useState<{ nodes: Item[]; total: number; cursor: string | null; more: boolean }>({ nodes: [], total: 0, cursor: null, more: false });
  const [comments, setComments] = useState<any[]>([]);
  const [commentPage, setCommentPage] = useState<{ total: number; cursor: string | null; more: boolean }>({ total: 0, cursor: null, more: false });
  const [historyCount, setHistoryCount] = useState(0);
  const [changes, setChanges] = useState(0);
  // `reading`: the list being read again (deleted items shown or hidden, another task), which "Show all" and a link to an item wait for.
  const state = useRef({ items, historyCount: 0, busy: Promise.resolve(), id, showDeleted, comments, commentPage, loadingMore: null as Promise<void> | null, reading: Promise.resolve() });
  state.current.items = items;
  state.current.comments = comments;
  state.current.commentPage = commentPage;
  state.current.id = id;
  state.current.showDeleted = showDeleted;

  const readItems = async (count: number) => {
    const nodes: Item[] = [];
    let after: string | null = null;
    let page: any;
    do {
      const want: number = nodes.length === 0 ? Math.max(Math.min(count, PAGE), 1) : Math.min(PAGE, count - nodes.length);
      page = (await (after === null && sentEarly(`items ${id} ${showDeleted} ${want}`) || gql(ITEMS, { id, deleted: showDeleted, first: want, after }))).task?.items;
      if (!page) break;
      nodes.push(...page.nodes);
      after = page.pageInfo.endCursor;
    } while (page.pageInfo.hasNextPage && nodes.length < count);
    return { nodes, total: page?.totalCount ?? 0, cursor: after, more: Boolean(page?.pageInfo.hasNextPage) };
  };

  const loadHead = async () => {
    const data = await (sentEarly(`head ${id}`) ?? gql(HEAD, { id }));
    if (!data.task) return setHead({ task: null, missing: true, error: null });
    state.current.historyCount = data.task.history.totalCount;
    setHistoryCount(data.task.history.totalCount);
    setComments(data.task.comments.nodes);
    setCommentPage(pageOf(data.task.comments));
    setHead({ task: data.task, missing: false, error: null });
  };
  const fail = (error: Error) => setHead((old) => ({ ...old, error: error.message }));

  // Opening the task: its head and the first page, side by side.
  useEffect(() => {
    state.current.historyCount = 0;
    setHead({ task: null, missing: false, error: null });
    setItems({ nodes: [], total: 0, cursor: null, more: false });
    void loadHead().catch(fail);
  }, [id]);
  // Showing deleted items again keeps as many rows as were loaded; another task starts from its first page.
  const shownFor = useRef(id);
  useEffect(() => {
    const count = shownFor.current === id ? Math.max(FIRST_PAGE, state.current.items.nodes.length) : FIRST_PAGE;
    shownFor.current = id;
    // No further page of the list being replaced: "Show more" waits for the new one (a page read after its cursor would mix the two).
    if (state.current.items.more) setItems((old) => ({ ...old, more: false }));
    state.current.reading = readItems(count).then((next) => { state.current.items = next; setItems(next); }, fail);
  }, [id, showDeleted]);

  const applyChange = async (changed: any) => {
    if (!changed) return loadHead();
    const known = state.current.historyCount;
    const count: number = changed.history.totalCount;
    setHead((old) => ({ ...old, task: old.task && Number(changed.version) >= Number(old.task.version) ? { ...old.task, ...changed, history: undefined } : old.task }));
    if (count <= known) return;
    state.current.historyCount = count;
    setHistoryCount(count);
    setChanges((n) => n + 1);
    // The events since the last one applied: carried by the change when few, else read (a long gap rereads everything shown).
    let fresh: any[] = changed.history.nodes.slice(0, count - known);
    if (count - known > fresh.length) {
      if (count - known > 200) return reloadAll();
      fresh = (await gql(RECENT_EVENTS, { id, first: count - known })).task?.history.nodes ?? [];
    }
    if (fresh.some((event) => event.action === 'TASK_EDITED' || NOTES.has(event.action))) await loadHead();
    if (fresh.some((event) => !IN_PLACE.has(event.action) && !NOTES.has(event.action))) {
      setItems(await readItems(Math.max(FIRST_PAGE, state.current.items.nodes.length)));
      return refreshComments();
    }
    if (fresh.some((event) => event.action === 'COMMENT_ADDED')) await refreshComments();
    const named = new Set(fresh.flatMap((event) => event.changes.map((change: any) => change.itemId as string)));
    // The items waiting for a changed one are read again too: whether they are ready follows its state.
    for (const item of state.current.items.nodes) if (named.has(item.id)) for (const waiter of item.blocks) named.add(waiter.id);
    const touched = [...named].filter((itemId) => state.current.items.nodes.some((item) => item.id === itemId));
    if (!touched.length) return;
    // One request for every touched row on screen: the row and its comments.
    const fields = touched.map((itemId, index) => `i${index}: item(id: "${itemId.replace(/\D/g, '')}") { ${ITEM} comments(first: 200) { nodes { ${COMMENT} } } }`);
    const rows = await gql(`{ ${fields.join(' ')} }`);
    const byId = new Map<string, any>(touched.map((itemId, index) => [itemId, rows[`i${index}`]]));
    setItems((old) => ({ ...old, nodes: old.nodes.map((item) => (byId.get(item.id) ? { ...item, ...strip(byId.get(item.id)) } : item)) }));
    setComments((old) => {
      const kept = old.filter((comment) => !(comment.item && byId.has(comment.item.id)));
      const added = [...byId.values()].flatMap((row) => row?.comments.nodes ?? []);
      return [...kept, ...added].sort((a, b) => Number(a.id) - Number(b.id));
    });
  };
  // As many comments as are shown, read again a page at a time (a new one lands at the end, on the last page read).
  const refreshComments = async () => {
    const want = Math.max(COMMENT_PAGE, state.current.comments.length);
    const nodes: any[] = [];
    let after: string | null = null;
    let page: any;
    do {
      page = (await gql(COMMENTS, { id, first: COMMENT_PAGE, after })).task?.comments;
      if (!page) return;
      nodes.push(...page.nodes);
      after = page.pageInfo.endCursor;
    } while (page.pageInfo.hasNextPage && nodes.length < want);
    setComments(nodes);
    setCommentPage(pageOf(page));
  };
  const loadMoreComments = async () => {
    const current = state.current.commentPage;
    if (!current.more) return;
    const page = (await gql(COMMENTS, { id, first: COMMENT_PAGE, after: current.cursor })).task?.comments;
    if (!page) return;
    const known = new Set(state.current.comments.map((comment) => comment.id));
    const next = [...state.current.comments, ...page.nodes.filter((comment: any) => !known.has(comment.id))];
    state.current.comments = next;
    state.current.commentPage = pageOf(page);
    setComments(next);
    setCommentPage(pageOf(page));
  };

  // Changes are applied one at a time, in the order they came.
  const onEvent = (data: any) => {
    // A renewal moves a claim's expiry and records no history: the claims on screen are read again.
    const work = data?.taskChanged?.action === 'CLAIM_RENEWED' ? renewed : () => applyChange(data?.taskChanged?.task);
    state.current.busy = state.current.busy.then(() => work().catch(fail));
  };
  const renewed = async () => {
    const claims = await claimsNow(state.current.items.nodes.filter((item) => item.claim).map((item) => item.id));
    setItems((old) => ({ ...old, nodes: old.nodes.map((item) => (claims.has(item.id) ? { ...item, claim: claims.get(item.id)! } : item)) }));
  };
  useSubscription(TASK_LIVE, { id }, onEvent);
  // After a reconnect (changes may have been missed) or a new token (the last read may have been refused): read it all again.
  useEffect(() => {
    const again = () => void reloadAll();
    const stops = [onReconnect(again), token.subscribe(again)];
    return () => stops.forEach((stop) => stop());
  }, [id, showDeleted]);

  async function reloadAll() {
    await loadHead().then(() => readItems(Math.max(FIRST_PAGE, state.current.items.nodes.length))).then(setItems, fail);
  }

  // One page read at a time: a scroll and a click asking together read the next page once.
  const loadMore = () => (state.current.loadingMore ??= readMore().finally(() => { state.current.loadingMore = null; }));
  const readMore = async () => {
    const current = state.current.items;
    if (!current.more) return;
    const page = (await gql(ITEMS, { id, deleted: showDeleted, first: PAGE, after: current.cursor })).task?.items;
    // The list was read again meanwhile (a change renumbered it, deleted items shown): this page followed the old one.
    const now = state.current.items;
    if (!page || now.cursor !== current.cursor) return;
    // Appended to the list as it is now, so a row patched live while the page was read keeps its patch.
    const next = { nodes: [...now.nodes, ...page.nodes], total: page.totalCount, cursor: page.pageInfo.endCursor, more: page.pageInfo.hasNextPage };
    state.current.items = next;
    setItems(next);
  };
  // Each step waits for a list being read again first: asked for while deleted items were just shown, it would
  // otherwise see the old list's "no further page" and stop at its first page.
  const loadAll = async () => {
    for (let i = 0; i < 25; i += 1) {
      await state.current.reading;
      if (!state.current.items.more) return;
      await loadMore();
    }
  };
  const reach = async (itemId: string) => {
    for (let i = 0; i < 25; i += 1) {
      await state.current.reading;
      if (state.current.items.nodes.some((item) => item.id === itemId)) return true;
      if (!state.current.items.more) return false;
      await loadMore();
    }
    return false;
  };

  return {
    task: head.task, missing: head.missing, error: head.error,
    items: items.nodes, totalItems: items.total, hasMore: items.more,
    comments, totalComments: commentPage.total, hasMoreComments: commentPage.more, loadMoreComments, historyCount, loadMore, loadAll, reach, changes,
  };
}

function pageOf(page: any): { total: number; cursor: string | null; more: boolean } {
  return { total: page.totalCount, cursor: page.pageInfo.endCursor, more: page.pageInfo.hasNextPage };
}

function strip(row: any): Item {
  const { comments: _comments, ...item } = row;
  return item;
}
