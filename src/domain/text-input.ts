import { DomainError } from './errors.js';

/**
 * What any text that comes in may hold, label or free text, whichever
 * surface sent it (GraphQL, MCP, the CLI): the services call these through
 * text-rules.ts, so no surface needs a copy.
 */

/**
 * C0 and C1 control characters other than tab, LF, CR and NEL: they print
 * nothing a reader can check (a bell, a backspace, a terminal escape that
 * rewrites the screen), so text that carries them shows one thing and
 * holds another. Line breaks stay: free text is written in lines.
 */
const CONTROL = /[\u0001-\u0008\u000B\u000C\u000E-\u001F\u007F-\u0084\u0086-\u009F]/;
/** A UTF-16 surrogate without its partner: not a character, and stored as U+FFFD by SQLite. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The bidi controls (embeddings, overrides, isolates and the three marks):
 * they reorder how the text around them is shown, so a label carrying one
 * can read as another label, or hide what it holds ("Trojan Source").
 * Each named, so the refusal says which one was sent.
 */
const BIDI_CONTROLS: Record<string, string> = {
  '\u061C': 'ARABIC LETTER MARK',
  '\u200E': 'LEFT-TO-RIGHT MARK',
  '\u200F': 'RIGHT-TO-LEFT MARK',
  '\u202A': 'LEFT-TO-RIGHT EMBEDDING',
  '\u202B': 'RIGHT-TO-LEFT EMBEDDING',
  '\u202C': 'POP DIRECTIONAL FORMATTING',
  '\u202D': 'LEFT-TO-RIGHT OVERRIDE',
  '\u202E': 'RIGHT-TO-LEFT OVERRIDE',
  '\u2066': 'LEFT-TO-RIGHT ISOLATE',
  '\u2067': 'RIGHT-TO-LEFT ISOLATE',
  '\u2068': 'FIRST STRONG ISOLATE',
  '\u2069': 'POP DIRECTIONAL ISOLATE',
};
const BIDI_CONTROL = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;

function codePoint(char: string): string {
  return `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The 1-based place of a UTF-16 index, counted in characters as textLength counts them. */
function position(text: string, index: number): number {
  return [...text.slice(0, index)].length + 1;
}

/**
 * U+0000 is refused wherever text comes in: PostgreSQL cannot store it in a
 * text column (SQLite can), so accepting it would make the same call
 * succeed on one database and fail on the other.
 */
export function checkNoNulCharacter(text: string, field: string): void {
  if (text.includes('\u0000')) {
    throw new DomainError(
      'BAD_USER_INPUT',
      `${field} contains a NUL character (U+0000), which no text may hold. Remove the NUL character and send it again.`,
      { field },
    );
  }
}

/**
 * Refuses with BAD_USER_INPUT, naming the character and its place, text that
 * no reader could check: NUL (checkNoNulCharacter), a lone UTF-16 surrogate,
 * or another control character (CONTROL).
 */
export function checkCharacters(text: string, field: string): void {
  checkNoNulCharacter(text, field);
  const lone = LONE_SURROGATE.exec(text);
  if (lone) {
    const unit = lone[0].charCodeAt(0).toString(16).toUpperCase();
    throw new DomainError(
      'BAD_USER_INPUT',
      `${field} carries a lone UTF-16 surrogate (U+${unit} at position ${lone.index + 1}), which is not a character. ` +
        `Send valid Unicode: each emoji or rare character whole (as UTF-8, or as a \\uD83D\\uDE80 pair in JSON).`,
      { field, position: lone.index + 1 },
    );
  }
  const control = CONTROL.exec(text);
  if (control) {
    throw new DomainError(
      'BAD_USER_INPUT',
      `${field} holds the control character ${codePoint(control[0])} at position ${position(text, control.index)}, which prints nothing a reader can check. ` +
        'Remove it and send the text again (tabs and line breaks are fine in free text).',
      { field, position: position(text, control.index) },
    );
  }
}

/** Refuses with BAD_USER_INPUT a label carrying a bidi control (BIDI_CONTROLS), naming it and its place. */
export function checkNoBidiControl(label: string, field: string): void {
  const bidi = BIDI_CONTROL.exec(label);
  if (!bidi) return;
  throw new DomainError(
    'BAD_USER_INPUT',
    `${field} holds ${codePoint(bidi[0])} ${BIDI_CONTROLS[bidi[0]]} at position ${position(label, bidi.index)}, a bidi control, and labels may not: ` +
      'it changes how the label is shown, so it can read as another one. Send the label without it (its own letters set its direction); ' +
      'text that needs direction controls belongs in free text (the goal, a note, a comment).',
    { field, position: position(label, bidi.index) },
  );
}
