import { describe, expect, it } from 'vitest';
import { cleanSessionKey, SESSION_KEY_MAX } from './session-keys.js';

describe('cleanSessionKey', () => {
  it('keeps a key trimmed, spaces and non-ASCII letters inside it too', () => {
    expect(cleanSessionKey('  3f0c9a1e-claude-session ')).toBe('3f0c9a1e-claude-session');
    expect(cleanSessionKey('chat über billing')).toBe('chat über billing');
    expect(cleanSessionKey('k'.repeat(SESSION_KEY_MAX))).toHaveLength(SESSION_KEY_MAX);
  });

  it('refuses an empty key, an over-long one and one with a control or invisible character, saying what to send', () => {
    for (const raw of ['', '   ', 'k'.repeat(SESSION_KEY_MAX + 1), 'a\u0000b', 'a\nb', 'a\u200Bb', 'a\u202Eb']) {
      expect(() => cleanSessionKey(raw)).toThrow(/send 1 to 128 visible characters/);
    }
    const refused = (() => {
      try {
        cleanSessionKey('x\u0000'.repeat(5000));
        return null;
      } catch (error) {
        return error as Error & { code: string };
      }
    })();
    expect(refused?.code).toBe('BAD_USER_INPUT');
    expect(refused?.message).not.toContain('\u0000');
  });
});
