import { parseRefs, refTargetsOf, renderRefs, type RefTarget } from '../domain/refs.js';
import type { ItemEntity } from '../db/entities/index.js';
import type { Context } from './context.js';
import { after, type Maybe } from './execution/settled-loader.js';
import type { ItemRef } from './types/common.type.js';

/** What a token names, with the item's state, which the API's ItemRef answers beside it. */
type Target = RefTarget & { state: ItemEntity['state'] };

const targetsCache = new WeakMap<readonly ItemEntity[], Map<string, Target>>();

/**
 * What each item of a task reads as now, keyed by id; computed once per
 * loaded item list (the per-request loader hands out the same array), so
 * rendering a page of notes costs no query per token. Built from the live
 * items; targetsOf adds the deleted ones an answer cites.
 */
export function refTargets(items: readonly ItemEntity[]): Map<string, Target> {
  let targets = targetsCache.get(items);
  if (!targets) {
    targets = refTargetsOf(items, (item) => ({ state: item.state }));
    targetsCache.set(items, targets);
  }
  return targets;
}

const byIdCache = new WeakMap<readonly ItemEntity[], Map<number, ItemEntity>>();

/** A task's loaded items keyed by id, made once per loaded list (each item of a page looks its task's items up in it). */
export function itemsById(items: readonly ItemEntity[]): ReadonlyMap<number, ItemEntity> {
  let byId = byIdCache.get(items);
  if (!byId) byIdCache.set(items, (byId = new Map(items.map((item) => [item.id, item]))));
  return byId;
}

/** The distinct ids cited in `texts`, in order of first appearance, as they read now. */
export function refsIn(texts: readonly (string | null | undefined)[], targets: ReadonlyMap<string, Target>, memo: TextMemo = memoOf(targets)): ItemRef[] {
  const seen = new Set<string>();
  const refs: ItemRef[] = [];
  for (const text of texts) {
    if (!text) continue;
    for (const id of citedIn(memo, text)) {
      const target = targets.get(id);
      if (seen.has(id) || !target) continue;
      seen.add(id);
      refs.push(target);
    }
  }
  return refs;
}

/**
 * What the items of a task read as now: every live one, and those of `ids`
 * that are not live (deleted ones, cited or named) read by id and kept in the
 * same per-request map, so the live list stays the only list read whole. An
 * id of another task, or of no item, stays out. Once the request holds the
 * live list and every id asked for, the map itself (no promise).
 */
export function targetsOf(ctx: Context, taskId: number, ids: Iterable<string>): Maybe<Map<string, Target>> {
  return after(ctx.loaders.taskItems.loadNow(taskId), (items) => {
    const targets = refTargets(items);
    const missing = [...new Set(ids)].filter((id) => !targets.has(id));
    if (!missing.length) return targets;
    return ctx.loaders.citedItems.loadMany(missing).then((rows) => {
      for (const row of rows) {
        if (!row || row instanceof Error || row.taskId !== taskId) continue;
        targets.set(String(row.id), { id: String(row.id), number: null, text: row.text, deleted: row.deleted, state: row.state });
      }
      return targets;
    });
  });
}

/**
 * What a request already made of each text, beside the task's targets map
 * (one map per task and request, refTargets): the ids it cites and the text
 * rendered, so a text shown as bodyText and counted in refs, on the node and
 * on its connection, is parsed once and rendered once. Once a text was
 * rendered its cited ids were all looked up, so later additions to the map
 * (other texts' deleted items) never change it.
 */
interface TextMemo {
  cited: Map<string, string[]>;
  rendered: Map<string, string>;
}
const memos = new WeakMap<ReadonlyMap<string, RefTarget>, TextMemo>();

function memoOf(targets: ReadonlyMap<string, RefTarget>): TextMemo {
  let memo = memos.get(targets);
  if (!memo) memos.set(targets, (memo = { cited: new Map(), rendered: new Map() }));
  return memo;
}

/** The distinct ids `text` cites (parsed once per request's targets). */
function citedIn(memo: TextMemo, text: string): string[] {
  if (!text.includes('[[#')) return [];
  let ids = memo.cited.get(text);
  if (!ids) memo.cited.set(text, (ids = parseRefs(text)));
  return ids;
}

/** What the texts of a task cite, as the task's items read now. */
export function targetsCitedIn(ctx: Context, taskId: number, texts: readonly (string | null | undefined)[]): Maybe<Map<string, Target>> {
  return after(ctx.loaders.taskItems.loadNow(taskId), (items) => {
    const memo = memoOf(refTargets(items));
    return targetsOf(ctx, taskId, texts.flatMap((text) => (text ? citedIn(memo, text) : [])));
  });
}

/** `text` of a task with each [[#id]] rendered as the task's items read now (once per request). */
export function renderedFor(ctx: Context, taskId: number, text: string): Maybe<string> {
  if (!text.includes('[[#')) return text;
  return after(targetsCitedIn(ctx, taskId, [text]), (targets) => {
    const memo = memoOf(targets);
    let rendered = memo.rendered.get(text);
    if (rendered === undefined) memo.rendered.set(text, (rendered = renderRefs(text, targets)));
    return rendered;
  });
}

/**
 * The distinct items `texts` of a task cite, in order of first appearance, as
 * they read now. Once the request holds the task's live items, texts citing
 * only live ones (almost all) are answered in one pass over their cited ids;
 * only a text citing an id the live list lacks (deleted, or not the task's)
 * goes by targetsCitedIn to look it up. Per note and comment of a dashboard
 * read, the detour (an id list per text, a Set of it and a filter, then a
 * second pass) was most of what its refs cost.
 */
export function refsFor(ctx: Context, taskId: number, texts: readonly (string | null | undefined)[]): Maybe<ItemRef[]> {
  return after(ctx.loaders.taskItems.loadNow(taskId), (items) => {
    const targets = refTargets(items);
    const refs = liveRefsIn(texts, targets, memoOf(targets));
    return refs ?? after(targetsCitedIn(ctx, taskId, texts), (all) => refsIn(texts, all, memoOf(all)));
  });
}

/** refsIn when every id `texts` cite is in `targets`; null as soon as one is not (targetsOf must look it up first). */
function liveRefsIn(texts: readonly (string | null | undefined)[], targets: ReadonlyMap<string, Target>, memo: TextMemo): ItemRef[] | null {
  const refs: ItemRef[] = [];
  let seen: Set<string> | null = null;
  for (const text of texts) {
    if (!text) continue;
    for (const id of citedIn(memo, text)) {
      const target = targets.get(id);
      if (!target) return null;
      if ((seen ??= new Set()).has(id)) continue;
      seen.add(id);
      refs.push(target);
    }
  }
  return refs;
}

/** Dependencies as the API shows them: each one whose item is of the task (a deleted one stays, marked deleted), its reason rendered. */
export function dependenciesOf(ctx: Context, taskId: number, dependsOn: readonly { item: string; reason: string | null }[]) {
  return after(targetsOf(ctx, taskId, dependsOn.flatMap((d) => [d.item, ...(d.reason ? parseRefs(d.reason) : [])])), (targets) =>
    dependsOn.filter((d) => targets.has(d.item)).map((d) => dependencyOf(targets.get(d.item)!, d.reason, targets)));
}

/** The items of a task with these ids (live or deleted), in list order. */
export function itemsOfTaskWithIds(ctx: Context, taskId: number, ids: readonly number[]): Maybe<ItemEntity[]> {
  return after(ctx.loaders.taskItems.loadNow(taskId), (live) => {
    const wanted = new Set(ids);
    const found = live.filter((item) => wanted.has(item.id));
    if (found.length >= wanted.size) return found;
    const held = new Set(found.map((item) => item.id));
    return ctx.loaders.citedItems.loadMany(ids.filter((id) => !held.has(id)).map(String)).then((others) => {
      for (const row of others) if (row && !(row instanceof Error) && row.taskId === taskId) found.push(row);
      return found.sort((a, b) => a.position - b.position || a.id - b.id);
    });
  });
}

/**
 * A dependency as the API shows it: the item waited for, as it reads now, and
 * the reason raw and rendered. The rendering waits until reasonText is read
 * (a property the executor reads only when the query asks for it): the
 * dashboard shows reasons raw, and rendering each brief's reasons it never
 * showed was a regex pass per dependency. `targets` already holds every id
 * the reason cites (dependenciesOf looked them up), and entries are only
 * ever added to it, so a later read renders what an eager one would have.
 */
export function dependencyOf(target: Target, reason: string | null, targets: ReadonlyMap<string, RefTarget>): DependencyView {
  return new DependencyView(target, reason, targets);
}

class DependencyView {
  #rendered: string | null | undefined;
  constructor(readonly item: ItemRef, readonly reason: string | null, private readonly targets: ReadonlyMap<string, RefTarget>) {}

  get reasonText(): string | null {
    if (this.#rendered === undefined) this.#rendered = this.reason === null ? null : renderRefs(this.reason, this.targets);
    return this.#rendered;
  }
}
