/**
 * Text rules for labels (task titles, item labels, note titles, plan steps)
 * and free text (goals, brief fields, note bodies, comments, step notes):
 * characters (text-input.ts), trimming, Unicode normalisation, what counts as
 * empty, line breaks, lengths and duplicates. The services call these for
 * every text they take, so every surface gets the same answer.
 */
import { DomainError, refuse } from './errors.js';
import { labelName, type LabelPlace } from './refusals.js';
import { hasRefToken } from './refs.js';
import { checkCharacters, checkNoBidiControl } from './text-input.js';

/** Lists, progress and every DEPENDS ON show an item's label whole, so it stays short. */
export const ITEM_LABEL_MAX = 80;
export const FREE_TEXT_MAX = 20_000;
export const ITEMS_PER_TASK_MAX = 500;
export const ITEMS_PER_CALL_MAX = 100;

/**
 * Characters a reader cannot see: whitespace and Unicode's default-ignorable
 * code points (zero-width space and joiners, word joiner, BOM, soft hyphen,
 * variation selectors, Hangul fillers; the bidi controls among them are
 * refused in labels outright). A label made only of these looks empty, and
 * two labels differing only in them look the same.
 */
const INVISIBLE = /[\s\p{Default_Ignorable_Code_Point}]/u;
const INVISIBLE_EDGES = /^[\s\p{Default_Ignorable_Code_Point}]+|[\s\p{Default_Ignorable_Code_Point}]+$/gu;
const INVISIBLE_RUNS = /[\s\p{Default_Ignorable_Code_Point}]+/gu;
/** Every line break JavaScript, JSON readers and terminals honour. */
const LINE_BREAK = /[\n\r\v\f\u0085\u2028\u2029]/;
/** Nothing but combining marks (and spaces): accents with no letter to sit on, which show as nothing or as a stray mark. */
const ONLY_MARKS = /^[\p{M}\s]*$/u;

/**
 * Text as it is checked and stored: refused with BAD_USER_INPUT when it
 * carries NUL, a lone surrogate or another control character
 * (text-input.ts checkCharacters), else NFC-normalised (so "é" typed as one
 * character or as e + accent is one text) and trimmed.
 */
export function normalizeText(raw: string, field: string): string {
  checkCharacters(raw, field);
  return raw.normalize('NFC').trim();
}

/**
 * The form two labels are compared in: NFKC, invisible characters dropped
 * and whitespace runs read as one space. "Deploy", "Deploy\u200B",
 * "De\u200Dploy" and the fullwidth "Ｄｅｐｌｏｙ" are one label to a reader,
 * so they are one label here. Only the comparison folds: a label is stored
 * as it was sent (in NFC).
 */
export function labelKey(label: string): string {
  return label.normalize('NFKC').replace(INVISIBLE_EDGES, '').replace(INVISIBLE_RUNS, (run) => (/\s/u.test(run) ? ' ' : ''));
}

/** True when two labels read the same (see labelKey). */
export function sameLabel(a: string, b: string): boolean {
  return labelKey(a) === labelKey(b);
}

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
 * Normalises a label (task title, item text, note title; see normalizeText)
 * and checks it: BAD_USER_INPUT for a bidi control (text-input.ts
 * checkNoBidiControl), EMPTY_TEXT when nothing visible is left or only
 * combining marks are, BAD_USER_INPUT for a line break inside it (a label is
 * one line), REF_IN_LABEL when it carries an [[#id]] token, TEXT_TOO_LONG
 * over `maxLength` when one is given. Returns the label trimmed of
 * whitespace and invisible characters at its ends.
 */
export function cleanLabel(raw: string, field: string | LabelPlace, maxLength?: number): string {
  const place = typeof field === 'string' ? { field } : field;
  const label = visibleLabel(raw, place);
  if (hasRefToken(label)) throw refuse('LABEL_HAS_REF', { ...place, label });
  const length = textLength(label);
  if (maxLength !== undefined && length > maxLength) throw refuse('LABEL_TOO_LONG', { ...place, length, limit: maxLength });
  return label;
}

/**
 * cleanLabel's reading of a label's characters: normalizeText, then no bidi
 * control, something visible that is not only combining marks, one line.
 * Returns it trimmed of whitespace and invisible characters at its ends.
 */
function visibleLabel(raw: string, place: LabelPlace): string {
  const field = labelName(place);
  const normalized = normalizeText(raw, field);
  // Checked before the invisible ends are trimmed: a bidi control at an end is refused too, never silently dropped.
  checkNoBidiControl(normalized, field);
  const label = normalized.replace(INVISIBLE_EDGES, '');
  if (label === '') {
    throw refuse('LABEL_EMPTY', { ...place, invisible: raw.trim() !== '' && [...raw].every((char) => INVISIBLE.test(char)) });
  }
  if (ONLY_MARKS.test(labelKey(label))) throw refuse('LABEL_ONLY_MARKS', place);
  if (LINE_BREAK.test(label)) {
    throw new DomainError(
      'BAD_USER_INPUT',
      `${field} holds a line break, and a label is one line. Send each item as its own label ` +
        `(items: ["First", "Second"], or one per line in itemsText), and put longer detail in free text.`,
      { ...place },
    );
  }
  return label;
}

/**
 * A plan step's text as it is checked and stored: normalizeText, then no
 * bidi control. A step is plain text the agent wrote for itself; the rest of
 * its rules (empty, length, duplicates) are its plan's (plan-rules.ts).
 */
export function cleanStepText(raw: string, field: string): string {
  const text = normalizeText(raw, field);
  checkNoBidiControl(text, field);
  return text;
}

/** Normalises free text (goal, brief field, note body, comment; see normalizeText); TOO_LARGE over FREE_TEXT_MAX. May be empty. */
export function cleanFreeText(raw: string, field: string): string {
  const text = normalizeText(raw, field);
  const length = textLength(text);
  if (length > FREE_TEXT_MAX) {
    throw refuse('FREE_TEXT_TOO_LONG', { field, length, limit: FREE_TEXT_MAX });
  }
  return text;
}

/**
 * Cleans the item labels sent in one call for one task (80 characters each,
 * or a plan's own limit)
 * and checks them against each other and the task's live labels. Refuses with
 * TOO_LARGE over ITEMS_PER_CALL_MAX in one call or when the task would hold more
 * than ITEMS_PER_TASK_MAX live items, and DUPLICATE_TEXT when a label reads
 * the same as another in the call or a live item (labelKey: after NFKC, with
 * invisible characters ignored). Returns the cleaned labels in order.
 */
export function cleanItemLabels(raw: readonly string[], existingLive: readonly string[], maxLength = ITEM_LABEL_MAX): string[] {
  // Counts first: an oversized call is refused whole before any label is read.
  if (raw.length > ITEMS_PER_CALL_MAX) {
    throw refuse('ITEMS_PER_CALL', { count: raw.length, limit: ITEMS_PER_CALL_MAX });
  }
  const total = existingLive.length + raw.length;
  if (total > ITEMS_PER_TASK_MAX) {
    throw refuse('ITEMS_PER_TASK', { live: existingLive.length, count: total, limit: ITEMS_PER_TASK_MAX });
  }

  const live = new Set(existingLive.map(labelKey));
  const sent = new Set<string>();
  return raw.map((entry, index) => {
    const label = cleanLabel(entry, { field: 'items', item: index + 1, of: raw.length }, maxLength);
    const key = labelKey(label);
    if (live.has(key)) {
      throw refuse('LABEL_TAKEN', { text: label });
    }
    if (sent.has(key)) {
      throw refuse('LABEL_SENT_TWICE', { text: label });
    }
    sent.add(key);
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
