import { cleanLabel } from './text-rules.js';

/** The longest name a session keeps. */
export const SESSION_NAME_MAX = 120;

/** A name an agent gives its session (startSession's name): a label, refused like one when empty or over SESSION_NAME_MAX. */
export function cleanSessionName(raw: string): string {
  return cleanLabel(raw, 'name', SESSION_NAME_MAX);
}

/**
 * A name taken from what an MCP client says it is (initialize's clientInfo:
 * its title, else its name). The client never chose it for a person to read,
 * so nothing is refused: blank is no name, and a long one is cut.
 */
export function clientSessionName(info: { name?: unknown; title?: unknown } | null | undefined): string | null {
  for (const candidate of [info?.title, info?.name]) {
    const name = typeof candidate === 'string' ? takenSessionName(candidate) : null;
    if (name) return name;
  }
  return null;
}

/** A name taken from a text nobody wrote as a name (a client's, a plan's first step): white space folded, cut at SESSION_NAME_MAX; null when blank. */
export function takenSessionName(text: string): string | null {
  const folded = text.replace(/\s+/g, ' ').trim();
  return folded ? [...folded].slice(0, SESSION_NAME_MAX).join('') : null;
}

/**
 * The words a session is found by (its name's letters and digits, lower-cased
 * and NFKC-normalised, each once): what the session_name_words table keeps
 * and what a search's words are matched against, so both sides read a name
 * the same way. "Refund-worker #7" gives ["refund", "worker", "7"].
 */
export function nameWords(text: string): string[] {
  return [...new Set(text.normalize('NFKC').toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean))];
}
