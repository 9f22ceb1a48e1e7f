import { type Item } from '../../task-types';

export interface Choice { id: string; number: number | null; text: string }
export const NO_NOTES = { totalCount: 0, nodes: [] };

/** The live items as the # menu offers them: the list before when no id, number or text moved. */
export function sameChoices(before: Choice[], items: readonly Item[]): Choice[] {
  const live = items.filter((item) => !item.deleted);
  const same = live.length === before.length && live.every((item, index) => item.id === before[index].id && item.number === before[index].number && item.text === before[index].text);
  return same ? before : live.map((item) => ({ id: item.id, number: item.number, text: item.text }));
}

export function sameList<T>(before: T[], next: T[]): T[] {
  return next.length === before.length && next.every((value, index) => value === before[index]) ? before : next;
}
