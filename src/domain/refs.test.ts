import { describe, expect, it } from 'vitest';
import { refusal } from '../../test/fixtures/refusal.js';
import {
  checkFreeText,
  findBareReference,
  hasRefToken,
  parseRefs,
  refTokenPattern,
  renderRefs,
  type RefTarget,
} from './refs.js';


function targets(...list: RefTarget[]): Map<string, RefTarget> {
  return new Map(list.map((target) => [target.id, target]));
}

describe('parseRefs', () => {
  it('finds tokens at the start, middle and end of the text', () => {
    expect(parseRefs('[[#1]] then [[#22]] and finally [[#333]]')).toEqual(['1', '22', '333']);
  });

  it('lists each id once, in order of first appearance', () => {
    expect(parseRefs('[[#7]] before [[#3]], again [[#7]] and [[#3]][[#7]]')).toEqual(['7', '3']);
  });

  it('reads adjacent tokens and tokens inside other punctuation', () => {
    expect(parseRefs('([[#4]][[#5]]), "[[#6]]".')).toEqual(['4', '5', '6']);
  });

  it('ignores malformed tokens', () => {
    expect(parseRefs('[[#]] [[# 4]] [[#4 ]] [#4] [[4]] [[#abc]] [[#-4]] [[#4]')).toEqual([]);
  });

  it('returns nothing for text without tokens', () => {
    expect(parseRefs('')).toEqual([]);
    expect(parseRefs('plain words and #12')).toEqual([]);
  });

  it('keeps ids as written, leading zeros included', () => {
    expect(parseRefs('[[#057]] [[#57]]')).toEqual(['057', '57']);
  });

  it('reads a token that starts inside a near miss, and ids past the first sixteen', () => {
    expect(parseRefs('[[[#4]] [[#[[#5]] [[#6]]]')).toEqual(['4', '5', '6']);
    const many = Array.from({ length: 40 }, (_, i) => `[[#${i}]]`);
    expect(parseRefs([...many, ...many].join(' x '))).toEqual(many.map((_, i) => String(i)));
  });

  it('finds what the token pattern finds, in any text made of its characters', () => {
    const alphabet = ['[', ']', '#', '1', '2', '0', ' ', 'a', '[[#', ']]'];
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let n = 0; n < 2000; n += 1) {
      const text = Array.from({ length: 1 + Math.floor(random() * 30) }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
      const expected = [...new Set([...text.matchAll(refTokenPattern())].map((match) => match[1]))];
      expect(parseRefs(text), text).toEqual(expected);
    }
  });
});

describe('refTokenPattern', () => {
  it('returns a fresh global pattern each call, capturing the id', () => {
    const first = refTokenPattern();
    expect(first).not.toBe(refTokenPattern());
    expect(first.global).toBe(true);
    expect([...'a [[#12]] b'.matchAll(first)].map((m) => m[1])).toEqual(['12']);
  });
});

describe('hasRefToken', () => {
  it('is true for a token anywhere in a label', () => {
    expect(hasRefToken('[[#3]] first')).toBe(true);
    expect(hasRefToken('Follow up on [[#3]]')).toBe(true);
  });

  it('is true for a near-miss token, which is still an attempt to cite', () => {
    expect(hasRefToken('Follow up on [[# 3]]')).toBe(true);
    expect(hasRefToken('Follow up on [[#x]]')).toBe(true);
  });

  it('is false for labels without one', () => {
    expect(hasRefToken('Cover refunds and disputes')).toBe(false);
    expect(hasRefToken('Issue #3 [3] [[3]]')).toBe(false);
    expect(hasRefToken('Übersetzung prüfen 🧪')).toBe(false);
  });
});

describe('findBareReference', () => {
  it('finds i followed by digits as a word', () => {
    expect(findBareReference('see i3 for details')).toBe('i3');
    expect(findBareReference('i12 first')).toBe('i12');
    expect(findBareReference('last is i4')).toBe('i4');
    expect(findBareReference('(i5), i6')).toBe('i5');
  });

  it('is case-insensitive and returns the word as written', () => {
    expect(findBareReference('Blocked by I7.')).toBe('I7');
  });

  it('returns the first of several', () => {
    expect(findBareReference('i2 and i1')).toBe('i2');
  });

  it('does not take words that merely contain i and digits', () => {
    expect(findBareReference('add i18n strings')).toBeNull();
    expect(findBareReference('the I2C bus')).toBeNull();
    expect(findBareReference('pi3 and wifi6 and i3_x and x_i3')).toBeNull();
    expect(findBareReference('item3 or i or 3i')).toBeNull();
  });

  it('treats letters of any script as part of the word', () => {
    expect(findBareReference('éi3 and i3é and дi4')).toBeNull();
  });

  it('finds a bare word next to non-letters of any script', () => {
    expect(findBareReference('—i3—')).toBe('i3');
    expect(findBareReference('「i9」')).toBe('i9');
  });

  it('looks only outside tokens', () => {
    expect(findBareReference('[[#3]] and [[#12]]')).toBeNull();
  });

  it('does not fuse the words on either side of a token', () => {
    expect(findBareReference('x[[#3]]i4')).toBe('i4');
  });

  it('catches an id written inside a near-miss token', () => {
    expect(findBareReference('see [[#i3]]')).toBe('i3');
  });

  it('returns null for text without one', () => {
    expect(findBareReference('')).toBeNull();
    expect(findBareReference('ship it')).toBeNull();
  });
});

describe('renderRefs', () => {
  const refunds: RefTarget = { id: '57', number: 3, text: 'Cover refunds and disputes', deleted: false };
  const lookup: RefTarget = { id: '58', number: null, text: 'Remove the charge-id lookup', deleted: true };

  it('renders a live item as its current number and label', () => {
    expect(renderRefs('Like [[#57]]?', targets(refunds))).toBe('Like [#3 Cover refunds and disputes]?');
  });

  it('renders a deleted item with its label, marked deleted', () => {
    expect(renderRefs('[[#58]] went away', targets(lookup))).toBe('[deleted item: Remove the charge-id lookup] went away');
  });

  it('renders every occurrence, at the start and end, and repeated ids', () => {
    expect(renderRefs('[[#57]] vs [[#58]], see [[#57]]', targets(refunds, lookup))).toBe(
      '[#3 Cover refunds and disputes] vs [deleted item: Remove the charge-id lookup], see [#3 Cover refunds and disputes]',
    );
  });

  it('leaves a token whose id is not in the map as written', () => {
    expect(renderRefs('[[#99]] and [[#57]]', targets(refunds))).toBe('[[#99]] and [#3 Cover refunds and disputes]');
  });

  it('renders unicode labels untouched', () => {
    const label: RefTarget = { id: '5', number: 1, text: 'Prüfen, 検証 🚀', deleted: false };
    expect(renderRefs('→ [[#5]]', targets(label))).toBe('→ [#1 Prüfen, 検証 🚀]');
  });

  it('treats an item without a place as deleted rather than inventing a number', () => {
    const placeless: RefTarget = { id: '6', number: null, text: 'Orphan', deleted: false };
    expect(renderRefs('[[#6]]', targets(placeless))).toBe('[deleted item: Orphan]');
  });

  it('does not read $ patterns in a label as replacement syntax', () => {
    const dollar: RefTarget = { id: '8', number: 2, text: "Pay $1 and $& and $'", deleted: false };
    expect(renderRefs('[[#8]]', targets(dollar))).toBe("[#2 Pay $1 and $& and $']");
  });

  it('returns text without tokens unchanged', () => {
    expect(renderRefs('nothing here', targets(refunds))).toBe('nothing here');
  });
});

describe('checkFreeText', () => {
  const ids = new Set(['57', '58', '59']);

  it('accepts text citing items of the task, deleted ones included', () => {
    expect(() => checkFreeText('Do [[#57]] before [[#58]]', 'goal', ids)).not.toThrow();
    expect(() => checkFreeText('', 'goal', ids)).not.toThrow();
    expect(() => checkFreeText('add i18n', 'goal', ids)).not.toThrow();
  });

  it('refuses a bare reference, quoting it and showing the token form', () => {
    const error = refusal(() => checkFreeText('Do i3 first', 'comment', ids));
    expect(error.code).toBe('BARE_ITEM_REFERENCE');
    expect(error.message).toContain('comment');
    expect(error.message).toContain('"i3"');
    expect(error.message).toContain('[[#');
    expect(error.message).toMatch(/\[\[#\d+\]\]/);
  });

  it('refuses a cited id that is not an item of this task, naming it', () => {
    const error = refusal(() => checkFreeText('See [[#57]] and [[#99]]', 'goal', ids));
    expect(error.code).toBe('UNKNOWN_REFERENCE');
    expect(error.message).toContain('goal');
    expect(error.message).toContain('[[#99]]');
    expect(error.message).not.toContain('[[#57]]');
    expect(error.message).toContain('deleted ones included');
    expect(error.message).toContain('57, 58, 59');
  });

  it('names every unknown id once', () => {
    const error = refusal(() => checkFreeText('[[#1]] [[#2]] [[#1]]', 'note body', ids));
    expect(error.message).toContain('[[#1]], [[#2]], which are not items');
  });

  it('says so when the task has no items to cite', () => {
    const error = refusal(() => checkFreeText('[[#1]]', 'goal', new Set()));
    expect(error.code).toBe('UNKNOWN_REFERENCE');
    expect(error.message).toContain('no items yet');
  });

  it('lists only the first ten ids of a large task', () => {
    const many = new Set(Array.from({ length: 25 }, (_, i) => String(100 + i)));
    const error = refusal(() => checkFreeText('[[#1]]', 'goal', many));
    expect(error.message).toContain('100, 101');
    expect(error.message).toContain('109 (and 15 more)');
    expect(error.message).not.toContain('110');
  });

  it('reports a bare reference before an unknown id', () => {
    expect(refusal(() => checkFreeText('[[#99]] and i2', 'goal', ids)).code).toBe('BARE_ITEM_REFERENCE');
  });
});
