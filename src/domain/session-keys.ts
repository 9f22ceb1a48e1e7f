import { DomainError } from './errors.js';
import { textLength } from './text-rules.js';

/** A chat key is an id a client chose (Claude Code's session id is 36 characters); the column holds this many. */
export const SESSION_KEY_MAX = 128;

/** Characters a key never holds: controls, format characters (zero-width, bidi), line and paragraph separators, lone surrogates. */
const NOT_IN_KEY = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

/**
 * How a key came, as its refusal names it and the example it gives: the
 * connection's header or flag, or a tool call's argument (in the tools' own
 * words, which name no GraphQL field such as "session").
 */
const SENT_AS = {
  connection: { what: 'The session key sent (x-session-key, or --session-key)', example: "the client's own session id" },
  argument: { what: '`session_key`', example: "the client's own id for this chat" },
} as const;

/**
 * A chat key as sent (--session-key, x-session-key, or a tool's
 * session_key), trimmed: the stable name a client gives one chat, so a
 * reconnect finds the chat's session and its plan. Refused with
 * BAD_USER_INPUT when it is empty, longer than SESSION_KEY_MAX characters,
 * or holds a character no reader can check (the refusal never quotes the
 * key: it may be 10,000 characters, or hold NUL); the same words whichever
 * way it came, naming that way.
 */
export function cleanSessionKey(raw: string, sentAs: keyof typeof SENT_AS = 'connection'): string {
  const key = raw.trim();
  const length = textLength(key);
  if (length === 0 || length > SESSION_KEY_MAX || NOT_IN_KEY.test(key)) {
    throw new DomainError(
      'BAD_USER_INPUT',
      `${SENT_AS[sentAs].what} is ${length === 0 ? 'empty' : `${length} characters${length > SESSION_KEY_MAX ? '' : ' with a control or invisible character in it'}`}; ` +
        `send 1 to ${SESSION_KEY_MAX} visible characters that name this chat, such as ${SENT_AS[sentAs].example}.`,
      { field: sentAs, length, limit: SESSION_KEY_MAX },
    );
  }
  return key;
}
