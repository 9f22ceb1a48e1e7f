import { describe, expect, it } from 'vitest';
import { SESSION_ID_MAX, parentNotFound, sessionIdOf, unknownSession } from './session-ids.js';

describe('sessionIdOf', () => {
  it('takes a server-made id, trimmed', () => {
    const id = '0b6f7c1e-3a2d-4f5b-9c8e-1d2a3b4c5d6e';
    expect(sessionIdOf(id)).toBe(id);
    expect(sessionIdOf(` ${id}\t`)).toBe(id);
    expect(sessionIdOf('x'.repeat(SESSION_ID_MAX))).toBe('x'.repeat(SESSION_ID_MAX));
  });

  it.each([
    ['nothing', null],
    ['blank', '  '],
    ['NUL', '1\u0000'],
    ['a control character', 'a\u0007b'],
    ['a space inside', 'a b'],
    ['non-ASCII', 'sessión'],
    ['over 64 characters', 's'.repeat(65)],
    ['10,000 characters', 's'.repeat(10_000)],
  ])('answers null for %s: no session can have that id', (_name, raw) => {
    expect(sessionIdOf(raw)).toBeNull();
  });
});

describe('the refusals', () => {
  it('quote an id that could be one, and only the length of one that cannot', () => {
    expect(unknownSession('agent-7').message).toContain('"agent-7" names no started session');
    const long = unknownSession('s'.repeat(10_000));
    expect(long.code).toBe('NO_SESSION');
    expect(long.message).toContain('(x-session-id, or --session) (10000 characters, not a session id) names no started session');
    expect(long.message.length).toBeLessThan(400);
    expect(unknownSession('1\u0000').message).not.toContain('\u0000');
    expect(long.message).toContain('Send the id startSession returned');
  });

  it('say the same for a parent that does not exist and one that is not the caller\'s', () => {
    const error = parentNotFound('abc');
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message).toBe(
      'No session has the id "abc". Pass the id startSession returned for the parent session (started with your own token), or leave parentId out.',
    );
  });
});
