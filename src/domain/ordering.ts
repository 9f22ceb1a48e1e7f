/**
 * Where items go in a list. A task's order covers all its items, deleted ones
 * included (they keep their place, so `includeDeleted` shows them where they
 * were); the numbers a list shows count only live items.
 */

/** Ids in their new order after inserting `added` right after `after` (at the end when null). */
export function insertAfter(order: readonly string[], added: readonly string[], after: string | null): string[] {
  if (after === null) return [...order, ...added];
  const index = order.indexOf(after);
  if (index < 0) throw new Error(`insertAfter: ${after} is not in the list`);
  return [...order.slice(0, index + 1), ...added, ...order.slice(index + 1)];
}

/** Ids in their new order after moving `id` right after `after` (first when null). */
export function moveAfter(order: readonly string[], id: string, after: string | null): string[] {
  const rest = order.filter((other) => other !== id);
  if (after === null) return [id, ...rest];
  const index = rest.indexOf(after);
  if (index < 0) throw new Error(`moveAfter: ${after} is not in the list`);
  return [...rest.slice(0, index + 1), id, ...rest.slice(index + 1)];
}

/** 1-based place of each live item; deleted ones have none. */
export function numberLiveItems<T extends { id: string; deleted: boolean }>(items: readonly T[]): Map<string, number> {
  const numbers = new Map<string, number>();
  for (const item of items) if (!item.deleted) numbers.set(item.id, numbers.size + 1);
  return numbers;
}
