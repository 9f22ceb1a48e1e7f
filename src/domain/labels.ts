/**
 * Label and text rules for knowledge-base tasks: titles, item labels, free
 * text and domains. Every text is trimmed before it is checked or stored.
 */
import { DomainError } from './errors.js';
import { hasRefToken } from './refs.js';

/** Lists, progress and every DEPENDS ON show an item's label whole, so it stays short. */
export const ITEM_LABEL_MAX = 80;
export const FREE_TEXT_MAX = 20_000;
export const ITEMS_PER_TASK_MAX = 500;
export const ITEMS_PER_CALL_MAX = 100;

/**
 * Length in characters (Unicode code points), not UTF-16 units: an emoji or
 * a CJK extension character counts once, as a reader (and PostgreSQL's
 * varchar) counts it.
 */
export function textLength(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

/**
 * Trims a label (task title, item text, note title) and checks it: EMPTY_TEXT
 * when nothing is left, REF_IN_LABEL when it carries an [[#id]] token,
 * TEXT_TOO_LONG over `maxLength` when one is given. Returns the trimmed label.
 */
export function cleanLabel(raw: string, field: string, maxLength?: number): string {
  const label = raw.trim();
  if (label === '') {
    throw new DomainError('EMPTY_TEXT', `${field} is empty once trimmed; send a short label with some text in it.`);
  }
  if (hasRefToken(label)) {
    throw new DomainError(
      'REF_IN_LABEL',
      `${field} "${label}" carries an [[#id]] token, and labels never may. ` +
        `Write the label in plain words and cite items in free text instead (the goal, a brief, a comment).`,
    );
  }
  const length = textLength(label);
  if (maxLength !== undefined && length > maxLength) {
    throw new DomainError(
      'TEXT_TOO_LONG',
      `${field} is ${length} characters; the limit is ${maxLength}. ` +
        `Keep it a short label, verb first, and put the detail in a brief on the item (addTaskNote with items and brief).`,
    );
  }
  return label;
}

/** Trims free text (goal, brief field, note body, comment); TOO_LARGE over FREE_TEXT_MAX. May be empty. */
export function cleanFreeText(raw: string, field: string): string {
  const text = raw.trim();
  const length = textLength(text);
  if (length > FREE_TEXT_MAX) {
    throw new DomainError(
      'TOO_LARGE',
      `${field} is ${length} characters; the limit is ${FREE_TEXT_MAX}. ` +
        `Shorten it, or split the detail into task notes.`,
    );
  }
  return text;
}

/**
 * Cleans the item labels sent in one call for one task (80 characters each,
 * or a plan's own limit)
 * and checks them against each other and the task's live labels. Refuses with
 * TOO_LARGE over ITEMS_PER_CALL_MAX in one call or when the task would hold more
 * than ITEMS_PER_TASK_MAX live items, and DUPLICATE_TEXT when a label repeats
 * (after trimming) within the call or matches a live item. Returns the trimmed
 * labels in order.
 */
export function cleanItemLabels(raw: readonly string[], existingLive: readonly string[], maxLength = ITEM_LABEL_MAX): string[] {
  // Counts first: an oversized call is refused whole before any label is read.
  if (raw.length > ITEMS_PER_CALL_MAX) {
    throw new DomainError(
      'TOO_LARGE',
      `${raw.length} items in one call; the limit is ${ITEMS_PER_CALL_MAX}. Send them in batches of at most ${ITEMS_PER_CALL_MAX}.`,
    );
  }
  const total = existingLive.length + raw.length;
  if (total > ITEMS_PER_TASK_MAX) {
    throw new DomainError(
      'TOO_LARGE',
      `the task has ${existingLive.length} live items and would have ${total}; the limit is ${ITEMS_PER_TASK_MAX}. ` +
        `Send at most ${Math.max(ITEMS_PER_TASK_MAX - existingLive.length, 0)} more, or split the work into another task.`,
    );
  }

  const live = new Set(existingLive.map((label) => label.trim()));
  const sent = new Set<string>();
  return raw.map((entry, index) => {
    const label = cleanLabel(entry, `item ${index + 1} of ${raw.length} sent`, maxLength);
    if (live.has(label)) {
      throw new DomainError(
        'DUPLICATE_TEXT',
        `"${label}" is already a live item of this task. Update that item instead, or give the new one a label that tells them apart.`,
      );
    }
    if (sent.has(label)) {
      throw new DomainError(
        'DUPLICATE_TEXT',
        `"${label}" is sent twice; each item of a task needs its own label. Merge the two, or tell them apart.`,
      );
    }
    sent.add(label);
    return label;
  });
}

/** itemsText: one label per line; blank lines ignored; CRLF (and lone CR) line ends accepted. Returns trimmed lines. */
export function splitItemsText(text: string): string[] {
  return text
    .split(/\r\n|\r|\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/** A whole domain path, in characters. */
export const DOMAIN_MAX = 200;

const DOMAIN_SEGMENT = '[a-z0-9][a-z0-9._-]*';
const DOMAIN_PATTERN = new RegExp(`^${DOMAIN_SEGMENT}(?:/${DOMAIN_SEGMENT}){0,7}$`);

/** Trims a domain and checks it is 1..8 segments of [a-z0-9][a-z0-9._-]* joined by '/'. Returns it trimmed. */
export function cleanDomain(raw: string): string {
  const domain = raw.trim();
  if (domain.length > DOMAIN_MAX) {
    throw new DomainError('INVALID_DOMAIN', `domain is ${domain.length} characters; the limit is ${DOMAIN_MAX}. Use shorter segments, e.g. "acme/checkout/billing".`);
  }
  if (DOMAIN_PATTERN.test(domain)) return domain;
  // Upper case is the commonest slip; offer the fix when it is the only one.
  const lower = domain.toLowerCase();
  const hint = lower !== domain && DOMAIN_PATTERN.test(lower) ? ` Did you mean "${lower}"?` : '';
  throw new DomainError(
    'INVALID_DOMAIN',
    `domain "${domain}" is not valid: a domain is 1 to 8 segments joined by '/', each of lower-case letters, digits, '.', '_' or '-' ` +
      `and starting with a letter or digit, e.g. "acme/checkout/billing".${hint}`,
  );
}

/** True when `domain` is `scope` or below it ("acme/checkout" covers "acme/checkout/billing", not "acme/checkoutx"). */
export function inScope(domain: string, scope: string): boolean {
  return domain === scope || domain.startsWith(`${scope}/`);
}
