/**
 * The knowledge-base tools' words: states as the reference names them
 * (todo, doing, done, dropped), string arguments parsed (items one per line,
 * ids comma-separated, depends_on with reasons), and texts read back with
 * their [[#id]] tokens rendered (errors.md "Rendering").
 */
import type { ItemEntity } from '../../db/entities/index.js';
import { refTargetsOf, renderRefs, type RefTarget } from '../../domain/refs.js';
import type { ItemState } from '../../domain/states.js';
import { ToolRefusal } from '../common/tool-result.js';

const KB_STATES = { todo: 'PENDING', doing: 'IN_PROGRESS', done: 'DONE', dropped: 'DROPPED' } as const satisfies Record<string, ItemState>;

/** An item state in the knowledge-base words; BLOCKED and FAILED (set elsewhere) read lower-case. */
export function kbState(state: ItemState): string {
  const found = Object.entries(KB_STATES).find(([, value]) => value === state);
  return found ? found[0] : state.toLowerCase();
}

/** todo/doing/done/dropped to an item state; refused with the four otherwise. */
export function parseKbState(raw: string): ItemState {
  const state = KB_STATES[raw.trim() as keyof typeof KB_STATES];
  if (!state) throw new ToolRefusal(`"${raw}" is not an item state. Use todo, doing, done or dropped.`);
  return state;
}

/** "12, 13" to ["12", "13"]; blanks skipped. */
export function parseIds(raw: string): string[] {
  return raw.split(',').map((id) => id.trim()).filter(Boolean);
}

/**
 * depends_on: "none", or comma-separated "<id> (<reason>)" entries, the
 * reason optional: "12 (the event-id handler), 13". A comma inside a reason
 * belongs to the reason.
 */
export function parseDependsOn(raw: string): { item: string; reason: string | null }[] {
  const text = raw.trim();
  if (text.toLowerCase() === 'none') return [];
  const entries: { item: string; reason: string | null }[] = [];
  const pattern = /\s*(\d+)\s*(?:\(((?:[^()]|\([^()]*\))*)\))?\s*(,|$)/y;
  let at = 0;
  while (at < text.length) {
    pattern.lastIndex = at;
    const match = pattern.exec(text);
    if (!match) {
      throw new ToolRefusal(
        `depends_on must be "none" or item ids separated by commas, each with an optional reason in brackets, e.g. "12 (the event-id handler), 13"; got "${raw}".`,
      );
    }
    entries.push({ item: match[1]!, reason: match[2]?.trim() || null });
    at = pattern.lastIndex;
    if (match[3] === '') break;
  }
  if (entries.length === 0) throw new ToolRefusal('depends_on is empty: send "none", or the ids of the items this one waits for.');
  return entries;
}

/** What each item of a task reads as now, for rendering [[#id]] tokens. */
export function targetsOf(items: readonly ItemEntity[]): Map<string, RefTarget> {
  return refTargetsOf(items);
}

export function rendered(text: string, targets: ReadonlyMap<string, RefTarget>): string {
  return renderRefs(text, targets);
}

/** A brief's depends_on read back: "[#1 Key charge.succeeded by event id] (the event-id handler)", one per line, or "none". */
export function dependsOnText(dependsOn: readonly { item: string; reason: string | null }[], targets: ReadonlyMap<string, RefTarget>): string {
  if (dependsOn.length === 0) return 'none';
  return dependsOn
    .map(({ item, reason }) => `${rendered(`[[#${item}]]`, targets)}${reason ? ` (${rendered(reason, targets)})` : ''}`)
    .join('\n');
}

/** Refusals are worded in kb-refusals.ts; the tools import them from here beside the other words. */
export { kbRefusal } from './kb-refusals.js';
