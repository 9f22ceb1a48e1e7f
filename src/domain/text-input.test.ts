import { describe, expect, it } from 'vitest';
import { refusal } from '../../test/fixtures/refusal.js';
import { checkCharacters, checkNoBidiControl, checkNoNulCharacter } from './text-input.js';

describe('checkNoNulCharacter', () => {
  it('refuses U+0000 anywhere, naming the field and what to do', () => {
    const error = refusal(() => checkNoNulCharacter('a\u0000b', 'title'));
    expect(error.code).toBe('BAD_USER_INPUT');
    expect(error.message).toContain('title');
    expect(error.message).toContain('Remove the NUL character');
  });
});

describe('checkCharacters', () => {
  it('gives NUL its own words, wherever it is', () => {
    for (const text of ['\u0000', 'a\u0000', '\u0000\u0001']) {
      expect(refusal(() => checkCharacters(text, 'body')).message).toContain('NUL character (U+0000)');
    }
  });

  it.each([
    ['a bell', 'ring\u0007', 'U+0007', 5],
    ['a terminal escape', 'red \u001B[31m', 'U+001B', 5],
    ['a backspace', 'ab\u0008c', 'U+0008', 3],
    ['DEL', '\u007F', 'U+007F', 1],
    ['a C1 control', 'x\u009B', 'U+009B', 2],
    ['a vertical tab', 'a\u000Bb', 'U+000B', 2],
  ])('refuses %s with BAD_USER_INPUT, naming it and its place', (_name, text, named, place) => {
    const error = refusal(() => checkCharacters(text, 'goal'));
    expect(error.code).toBe('BAD_USER_INPUT');
    expect(error.message).toContain(`control character ${named} at position ${place}`);
    expect(error.message).toContain('goal');
  });

  it('counts the place in characters, so an emoji before it counts once', () => {
    expect(refusal(() => checkCharacters('🚀\u0007', 'goal')).message).toContain('at position 2');
  });

  it('refuses a lone surrogate', () => {
    expect(refusal(() => checkCharacters('a\uD83D', 'goal')).message).toContain('lone UTF-16 surrogate');
  });

  it('accepts tabs, line breaks and any other text', () => {
    expect(() => checkCharacters('tab\there\r\nnext\u0085line é 🙂 \u202E \u200B', 'body')).not.toThrow();
  });
});

describe('checkNoBidiControl', () => {
  it.each([
    ['\u202E', 'U+202E RIGHT-TO-LEFT OVERRIDE'],
    ['\u202A', 'U+202A LEFT-TO-RIGHT EMBEDDING'],
    ['\u202C', 'U+202C POP DIRECTIONAL FORMATTING'],
    ['\u2066', 'U+2066 LEFT-TO-RIGHT ISOLATE'],
    ['\u2069', 'U+2069 POP DIRECTIONAL ISOLATE'],
    ['\u200E', 'U+200E LEFT-TO-RIGHT MARK'],
    ['\u200F', 'U+200F RIGHT-TO-LEFT MARK'],
    ['\u061C', 'U+061C ARABIC LETTER MARK'],
  ])('refuses %j in a label, naming the character', (char, named) => {
    const error = refusal(() => checkNoBidiControl(`Pay ${char}refund`, 'title'));
    expect(error.code).toBe('BAD_USER_INPUT');
    expect(error.message).toContain(`${named} at position 5`);
    expect(error.message).toContain('Send the label without it');
  });

  it('accepts right-to-left letters, which carry their own direction', () => {
    expect(() => checkNoBidiControl('שלום עולם', 'title')).not.toThrow();
    expect(() => checkNoBidiControl('مرحبا 123', 'title')).not.toThrow();
  });
});
