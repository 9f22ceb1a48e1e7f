import { describe, expect, it } from 'vitest';
import { refusal } from '../../test/fixtures/refusal.js';
import { checkNoNulCharacter } from './text-input.js';

describe('checkNoNulCharacter', () => {
  it('refuses U+0000 anywhere, naming the field and what to do', () => {
    const error = refusal(() => checkNoNulCharacter('a\u0000b', 'title'));
    expect(error.code).toBe('BAD_USER_INPUT');
    expect(error.message).toContain('title');
    expect(error.message).toContain('Remove the NUL character');
  });

  it('accepts other control characters and any other text', () => {
    expect(() => checkNoNulCharacter('tab\there \u0001 é 🙂', 'body')).not.toThrow();
  });
});
