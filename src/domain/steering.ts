import type { ChangeAction } from './history.js';

/**
 * The steering line: what an agent is told, at the start of its next tool
 * answer, of a change someone else (a person, or another session) made to its
 * plan or to an item it holds a claim on. Pure: the service reads the change
 * log and hands each change here with the item as it now stands.
 */

/** A change of the log, with what it is about as it now stands. */
export interface SteeringChange {
  action: ChangeAction;
  /** The session that made it; null for a person (a caller without a session). */
  madeBy: string | null;
  /** The plan's (or task's) item it changed, when it changed one. */
  item: { id: string; text: string; state: string; deleted: boolean; note: string | null } | null;
  /** The item's 1-based number as its plan's tool set shows it (plan-and-finish: its task id; else its place among the live steps); null for a knowledge-base task's item. */
  step: number | null;
  /** The knowledge-base task's title (null for a plan). */
  taskTitle: string | null;
}

/** The longest an item's text or reason is quoted: the agent reads the rest with its own tools. */
const QUOTE_MAX = 80;

/** At most this many lines; the rest are counted on one more line. */
export const STEERING_LINES_MAX = 5;

const STATE_WORDS: Record<string, string> = {
  PENDING: 'pending', IN_PROGRESS: 'in progress', DONE: 'done', BLOCKED: 'blocked', DROPPED: 'dropped', FAILED: 'failed',
};

type Phrase = (what: string, change: SteeringChange) => string;

/**
 * What each change action says, or null for one that does not steer (the
 * session's own bookkeeping, a claim's renewal, a change the same write also
 * logs as another action). An allowlist over every action, so a new action is
 * placed here on purpose.
 */
const PHRASES: Record<ChangeAction, Phrase | null> = {
  TASK_CREATED: null,
  TASK_EDITED: (_what, change) => (change.taskTitle === null ? 'edited your plan\'s goal' : `edited the task "${quote(change.taskTitle)}"`),
  ITEM_STATE: (what, change) => {
    const state = change.item?.state;
    if (state === 'DROPPED') return `dropped ${what}${reason(change)}`;
    return `marked ${what} ${STATE_WORDS[state ?? ''] ?? 'with a new state'}${reason(change)}`;
  },
  ITEMS_ADDED: (what, change) => (change.item ? `added ${what}` : 'added steps to your plan'),
  ITEM_RENAMED: (what) => `changed the text of ${what}`,
  ITEM_DELETED: (what) => `deleted ${what}`,
  ITEM_MOVED: (what) => `moved ${what}`,
  ITEM_LINKED: null,
  ITEM_RESTORED: (what) => `restored ${what}`,
  ITEM_WAITS: (what) => `changed what ${what} waits for`,
  COMMENT_ADDED: (what) => `commented on ${what}`,
  NOTE_ADDED: (what) => `added a note to ${what}`,
  NOTE_EDITED: (what) => `edited a note of ${what}`,
  NOTE_DELETED: (what) => `deleted a note of ${what}`,
  PLAN_WRITTEN: () => 'rewrote your plan',
  PLAN_CLEARED: () => 'cleared your plan',
  ITEM_CLAIMED: null,
  CLAIM_RELEASED: (what) => `released your claim on ${what}`,
  CLAIM_OVERRIDDEN: (what) => `changed ${what} past your claim`,
  NOTE_CREATED: null,
  NOTE_ARCHIVED: null,
  SESSION_STARTED: null,
  SESSION_FINISHED: null,
  RULES_CHANGED: () => 'changed your plan\'s rules',
  TURN_STARTED: null,
  REMINDED: null,
  // The plan's own change is logged beside it as the task's action, which is what is said.
  PLAN_CHANGED: null,
  SETTINGS_CHANGED: null,
  CLAIM_RENEWED: null,
  STEERING_SEEN: null,
  // Made by no one: an agent whose lease ran out hears it from task_item's fence, when it writes next.
  ITEM_CLAIM_EXPIRED: null,
};

/** True when the action can steer an agent: only such changes are read for it. */
export function steers(action: ChangeAction): boolean {
  return PHRASES[action] !== null;
}

/** The steering actions, for the read's filter. */
export const STEERING_ACTIONS = (Object.keys(PHRASES) as ChangeAction[]).filter(steers);

/**
 * The lines an agent is told, oldest change first, each said once (two
 * changes that read the same, such as two state changes of one step, are one
 * line), at most STEERING_LINES_MAX and a count of the rest. Empty when none steers.
 */
export function steeringLines(changes: readonly SteeringChange[]): string[] {
  const lines: string[] = [];
  for (const change of changes) {
    const phrase = PHRASES[change.action];
    if (!phrase) continue;
    const line = `Since your last call: ${who(change.madeBy)} ${phrase(whatOf(change), change)}.`;
    if (!lines.includes(line)) lines.push(line);
  }
  if (lines.length <= STEERING_LINES_MAX) return lines;
  const rest = lines.length - (STEERING_LINES_MAX - 1);
  return [...lines.slice(0, STEERING_LINES_MAX - 1), `Since your last call: and ${rest} more changes by others; read your plan or items again.`];
}

function who(madeBy: string | null): string {
  return madeBy === null ? 'a person' : `session ${madeBy}`;
}

function whatOf(change: SteeringChange): string {
  const { item } = change;
  if (!item) return change.taskTitle === null ? 'your plan' : `the task "${quote(change.taskTitle)}"`;
  return change.step !== null ? `step ${change.step} "${quote(item.text)}"` : `item ${item.id} "${quote(item.text)}"`;
}

function reason(change: SteeringChange): string {
  const note = change.item?.note?.trim();
  return note ? ` (${quote(note)})` : '';
}

function quote(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > QUOTE_MAX ? `${line.slice(0, QUOTE_MAX - 1)}…` : line;
}

/**
 * True when a whole list written now, by an agent that had not yet heard of
 * these changes, would undo one of them: a step someone else changed would
 * lose that change (left out, given back its old text, or another state), a
 * step they deleted would come back, or they rewrote or cleared the plan.
 * A step they dropped may be left out: that keeps it out of the work.
 */
export function undoesSteering(changes: readonly SteeringChange[], sent: readonly { content: string; status: string }[]): boolean {
  const byText = new Map(sent.map((todo) => [todo.content.trim(), todo.status]));
  return changes.some((change) => {
    if (!PHRASES[change.action] || change.step === null && change.item !== null) return false;
    if (change.action === 'PLAN_WRITTEN' || change.action === 'PLAN_CLEARED') return true;
    const { item } = change;
    if (!item) return false;
    const state = byText.get(item.text.trim());
    if (item.deleted) return state !== undefined;
    if (state === undefined) return item.state !== 'DROPPED';
    return state !== item.state;
  });
}
