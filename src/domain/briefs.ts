import { DomainError, refuse } from './errors.js';
import { cleanFreeText } from './text-rules.js';
import { REFS_PER_TEXT_MAX, checkFreeText, parseRefs } from './refs.js';

/** A brief as sent: the fields of a note on items. */
export interface BriefIn {
  goal: string;
  context: string;
  steps: string;
  pitfalls: string;
  doneWhen: string;
  dependsOn: readonly { item: string; reason?: string | null }[];
  extraInfo?: string | null;
}

export interface Brief {
  goal: string;
  context: string;
  steps: string;
  pitfalls: string;
  doneWhen: string;
  extraInfo: string | null;
  dependsOn: { item: string; reason: string | null }[];
}

const REQUIRED = ['goal', 'context', 'steps', 'pitfalls', 'doneWhen'] as const;

/**
 * Bounds on one brief, so that what reading it back lists (its items, its
 * dependsOn, its refs) has a size the query check can count on.
 */
export const BRIEF_ITEMS_MAX = 100;
export const BRIEF_DEPENDS_ON_MAX = 20;

/** TOO_LARGE when a brief is on more than BRIEF_ITEMS_MAX items. */
export function checkBriefItemCount(count: number): void {
  if (count <= BRIEF_ITEMS_MAX) return;
  throw new DomainError('TOO_LARGE', `The brief is on ${count} items; one brief is on at most ${BRIEF_ITEMS_MAX}. Split it into several briefs.`, { count, limit: BRIEF_ITEMS_MAX });
}

/** What a brief's dependencies are checked against, besides the task's item ids. */
interface BriefScope {
  /** The items the brief is on: an item cannot wait for itself. */
  briefed?: ReadonlySet<string>;
  /** Deleted items of the task: a new dependency on one is refused. */
  deleted?: ReadonlySet<string>;
  /** Dependencies the brief already had: kept even once their item is deleted. */
  kept?: ReadonlySet<string>;
}

/**
 * Checks and trims a brief for a task whose item ids are `taskItemIds`:
 * every required field non-empty (BRIEF_INCOMPLETE names the blank ones),
 * free text cites only this task's items as [[#id]], and dependsOn names
 * items of this task (UNKNOWN_REFERENCE otherwise), each once, none of the
 * briefed items themselves, and no deleted item it did not already name.
 */
export function cleanBrief(raw: BriefIn, taskItemIds: ReadonlySet<string>, scope: BriefScope = {}): Brief {
  const fields = Object.fromEntries(REQUIRED.map((name) => [name, cleanFreeText(raw[name], name)])) as Record<(typeof REQUIRED)[number], string>;
  const blank = REQUIRED.filter((name) => fields[name] === '');
  if (blank.length) {
    throw refuse('BRIEF_FIELDS_EMPTY', { fields: blank });
  }
  const extraInfo = raw.extraInfo === null || raw.extraInfo === undefined ? null : cleanFreeText(raw.extraInfo, 'extraInfo') || null;
  for (const name of REQUIRED) checkFreeText(fields[name], name, taskItemIds);
  if (extraInfo) checkFreeText(extraInfo, 'extraInfo', taskItemIds);
  if (raw.dependsOn.length > BRIEF_DEPENDS_ON_MAX) {
    throw refuse('DEPENDENCIES_PER_BRIEF', { count: raw.dependsOn.length, limit: BRIEF_DEPENDS_ON_MAX });
  }
  const dependsOn: Brief['dependsOn'] = [];
  for (const dependency of raw.dependsOn) {
    const item = String(dependency.item).trim();
    if (!taskItemIds.has(item)) {
      throw refuse('DEPENDENCY_UNKNOWN', { itemId: item });
    }
    if (dependsOn.some((existing) => existing.item === item)) {
      throw refuse('DEPENDENCY_TWICE', { itemId: item });
    }
    if (scope.briefed?.has(item)) {
      throw refuse('DEPENDENCY_ON_ITSELF', { itemId: item });
    }
    if (scope.deleted?.has(item) && !scope.kept?.has(item)) {
      throw refuse('DEPENDENCY_DELETED', { itemId: item });
    }
    const reason = dependency.reason === null || dependency.reason === undefined ? null : cleanFreeText(dependency.reason, 'reason') || null;
    if (reason) checkFreeText(reason, 'reason', taskItemIds);
    dependsOn.push({ item, reason });
  }
  const brief = { ...fields, extraInfo, dependsOn };
  // One text cites at most REFS_PER_TEXT_MAX items; a brief's texts together, too (its refs list them all).
  const cited = new Set(briefTexts(brief).flatMap(parseRefs));
  if (cited.size > REFS_PER_TEXT_MAX) {
    throw new DomainError(
      'TOO_LARGE',
      `The brief's texts cite ${cited.size} different items; one brief cites at most ${REFS_PER_TEXT_MAX}. Cite the items that matter, or split the brief.`,
      { count: cited.size, limit: REFS_PER_TEXT_MAX },
    );
  }
  return brief;
}

/** The free texts of a brief, for citing and rendering. */
function briefTexts(brief: Brief): string[] {
  return [brief.goal, brief.context, brief.steps, brief.pitfalls, brief.doneWhen, brief.extraInfo ?? '', ...brief.dependsOn.map((d) => d.reason ?? '')];
}

/**
 * Every free text of a task note in reading order, for the refs it cites and
 * what it still points at: the body of a whole-task note, or a brief's fields
 * with each dependency written as its [[#id]] token before its reason.
 */
export function taskNoteTexts(note: { body: string | null; brief: Brief | null }): string[] {
  const { brief } = note;
  if (!brief) return [note.body ?? ''];
  return [
    brief.goal, brief.context, brief.steps, brief.pitfalls, brief.doneWhen, brief.extraInfo ?? '',
    ...brief.dependsOn.flatMap((d) => [`[[#${d.item}]]`, d.reason ?? '']),
  ];
}

/** What kind of task note a call describes: a brief (items and brief) or a whole-task note (body only). */
export function taskNoteShape(input: { items?: readonly string[] | null; brief?: unknown; body?: string | null }): 'BRIEF' | 'WHOLE_TASK' {
  const hasItems = !!input.items && input.items.length > 0;
  const hasBrief = input.brief !== null && input.brief !== undefined;
  const hasBody = input.body !== null && input.body !== undefined;
  if (hasBrief && hasBody) {
    throw new DomainError('BRIEF_INCOMPLETE', 'Send either body (a note on the whole task) or items with brief (a note on items), not both.', { fields: ['body', 'brief'] });
  }
  if (hasBrief && !hasItems) {
    throw new DomainError('BRIEF_INCOMPLETE', 'A brief is a note on items: send items (the ids it briefs) with it, or send body alone for a note on the whole task.', { fields: ['brief'] });
  }
  if (hasItems && !hasBrief) {
    throw refuse('BRIEF_MISSING', {});
  }
  if (!hasBrief && !hasBody) {
    throw new DomainError('BRIEF_INCOMPLETE', 'A task note needs body (a note on the whole task) or items with brief (a note on items).', { fields: [] });
  }
  return hasBrief ? 'BRIEF' : 'WHOLE_TASK';
}
