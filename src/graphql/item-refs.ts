import { numberLiveItems } from '../domain/ordering.js';
import { parseRefs, renderRefs, type RefTarget } from '../domain/refs.js';
import type { ItemEntity } from '../db/entities/index.js';
import type { Context } from './context.js';
import type { ItemRef } from './types/common.type.js';

const targetsCache = new WeakMap<readonly ItemEntity[], Map<string, RefTarget>>();

/**
 * What each item of a task reads as now, keyed by id; computed once per
 * loaded item list (the per-request loader hands out the same array), so
 * rendering a page of notes costs no query per token.
 */
export function refTargets(items: readonly ItemEntity[]): Map<string, RefTarget> {
  let targets = targetsCache.get(items);
  if (!targets) {
    const numbers = numberLiveItems(items.map((item) => ({ id: String(item.id), deleted: item.deleted })));
    targets = new Map(items.map((item) => [String(item.id), { id: String(item.id), number: numbers.get(String(item.id)) ?? null, text: item.text, deleted: item.deleted }]));
    targetsCache.set(items, targets);
  }
  return targets;
}

/** The distinct ids cited in `texts`, in order of first appearance, as they read now. */
export function refsIn(texts: readonly (string | null | undefined)[], targets: ReadonlyMap<string, RefTarget>): ItemRef[] {
  const seen = new Set<string>();
  const refs: ItemRef[] = [];
  for (const text of texts) {
    if (!text) continue;
    for (const id of parseRefs(text)) {
      const target = targets.get(id);
      if (seen.has(id) || !target) continue;
      seen.add(id);
      refs.push({ ...target });
    }
  }
  return refs;
}

/** `text` of a task with each [[#id]] rendered as the task's items read now (one loader call per task and request). */
export async function renderedFor(ctx: Context, taskId: number, text: string): Promise<string> {
  return renderRefs(text, refTargets(await ctx.loaders.taskItems.load(taskId)));
}

/** A dependency as the API shows it: the item waited for, as it reads now, and the reason raw and rendered. */
export function dependencyOf(target: RefTarget, reason: string | null, targets: ReadonlyMap<string, RefTarget>) {
  return { item: { ...target }, reason, reasonText: reason === null ? null : renderRefs(reason, targets) };
}
