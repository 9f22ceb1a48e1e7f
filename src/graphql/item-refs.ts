import { parseRefs, refTargetsOf, refsCitedIn, renderRefs, type RefTarget } from '../domain/refs.js';
import type { ItemEntity } from '../db/entities/index.js';
import type { Context } from './context.js';
import type { ItemRef } from './types/common.type.js';

const targetsCache = new WeakMap<readonly ItemEntity[], Map<string, RefTarget>>();

/**
 * What each item of a task reads as now, keyed by id; computed once per
 * loaded item list (the per-request loader hands out the same array), so
 * rendering a page of notes costs no query per token. Built from the live
 * items; targetsOf adds the deleted ones an answer cites.
 */
export function refTargets(items: readonly ItemEntity[]): Map<string, RefTarget> {
  let targets = targetsCache.get(items);
  if (!targets) {
    targets = refTargetsOf(items);
    targetsCache.set(items, targets);
  }
  return targets;
}

/**
 * What the items of a task read as now: every live one, and those of `ids`
 * that are not live (deleted ones, cited or named) read by id and kept in the
 * same per-request map, so the live list stays the only list read whole. An
 * id of another task, or of no item, stays out.
 */
export async function targetsOf(ctx: Context, taskId: number, ids: Iterable<string>): Promise<Map<string, RefTarget>> {
  const targets = refTargets(await ctx.loaders.taskItems.load(taskId));
  const missing = [...new Set(ids)].filter((id) => !targets.has(id));
  if (missing.length) {
    for (const row of await ctx.loaders.citedItems.loadMany(missing)) {
      if (!row || row instanceof Error || row.taskId !== taskId) continue;
      targets.set(String(row.id), { id: String(row.id), number: null, text: row.text, deleted: row.deleted });
    }
  }
  return targets;
}

/** What the texts of a task cite, as the task's items read now. */
function targetsCitedIn(ctx: Context, taskId: number, texts: readonly (string | null | undefined)[]): Promise<Map<string, RefTarget>> {
  return targetsOf(ctx, taskId, texts.flatMap((text) => (text ? parseRefs(text) : [])));
}

/** `text` of a task with each [[#id]] rendered as the task's items read now. */
export async function renderedFor(ctx: Context, taskId: number, text: string): Promise<string> {
  return renderRefs(text, await targetsCitedIn(ctx, taskId, [text]));
}

/** The distinct items `texts` of a task cite, in order of first appearance, as they read now. */
export async function refsFor(ctx: Context, taskId: number, texts: readonly (string | null | undefined)[]): Promise<ItemRef[]> {
  return refsCitedIn(texts, await targetsCitedIn(ctx, taskId, texts));
}

/** Dependencies as the API shows them: each one whose item is of the task (a deleted one stays, marked deleted), its reason rendered. */
export async function dependenciesOf(ctx: Context, taskId: number, dependsOn: readonly { item: string; reason: string | null }[]) {
  const targets = await targetsOf(ctx, taskId, dependsOn.flatMap((d) => [d.item, ...(d.reason ? parseRefs(d.reason) : [])]));
  return dependsOn.filter((d) => targets.has(d.item)).map((d) => dependencyOf(targets.get(d.item)!, d.reason, targets));
}

/** The items of a task with these ids (live or deleted), in list order. */
export async function itemsOfTaskWithIds(ctx: Context, taskId: number, ids: readonly number[]): Promise<ItemEntity[]> {
  const live = await ctx.loaders.taskItems.load(taskId);
  const wanted = new Set(ids);
  const found = live.filter((item) => wanted.has(item.id));
  if (found.length < wanted.size) {
    const held = new Set(found.map((item) => item.id));
    const others = await ctx.loaders.citedItems.loadMany(ids.filter((id) => !held.has(id)).map(String));
    for (const row of others) if (row && !(row instanceof Error) && row.taskId === taskId) found.push(row);
    found.sort((a, b) => a.position - b.position || a.id - b.id);
  }
  return found;
}

/** A dependency as the API shows it: the item waited for, as it reads now, and the reason raw and rendered. */
export function dependencyOf(target: RefTarget, reason: string | null, targets: ReadonlyMap<string, RefTarget>) {
  return { item: { ...target }, reason, reasonText: reason === null ? null : renderRefs(reason, targets) };
}
