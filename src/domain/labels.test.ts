import { describe, expect, it } from 'vitest';
import { refusal } from '../../test/fixtures/refusal.js';
import {
  FREE_TEXT_MAX,
  ITEMS_PER_CALL_MAX,
  ITEMS_PER_TASK_MAX,
  ITEM_LABEL_MAX,
  cleanDomain,
  cleanFreeText,
  cleanItemLabels,
  cleanLabel,
  inScope,
  splitItemsText,
  textLength,
} from './labels.js';


function labels(count: number, prefix = 'Item'): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix} ${i + 1}`);
}

describe('limits', () => {
  it('match the published ones', () => {
    expect([ITEM_LABEL_MAX, FREE_TEXT_MAX, ITEMS_PER_TASK_MAX, ITEMS_PER_CALL_MAX]).toEqual([80, 20_000, 500, 100]);
  });
});

describe('textLength', () => {
  it('counts code points, so an emoji or rare CJK character counts once', () => {
    expect(textLength('abc')).toBe(3);
    expect(textLength('🚀')).toBe(1);
    expect('🚀'.length).toBe(2);
    expect(textLength('𠀀x')).toBe(2);
    expect(textLength('')).toBe(0);
  });
});

describe('cleanLabel', () => {
  it('returns the label trimmed', () => {
    expect(cleanLabel('  Cover refunds \n', 'title')).toBe('Cover refunds');
    expect(cleanLabel('\u00a0Prüfen 検証 🚀\t', 'title')).toBe('Prüfen 検証 🚀');
  });

  it('refuses an empty label, naming the field', () => {
    const error = refusal(() => cleanLabel(' \n\t ', 'title'));
    expect(error.code).toBe('EMPTY_TEXT');
    expect(error.message).toContain('title');
  });

  it('refuses a label carrying a token', () => {
    const error = refusal(() => cleanLabel('Follow up [[#12]]', 'item text'));
    expect(error.code).toBe('REF_IN_LABEL');
    expect(error.message).toContain('item text');
    expect(error.message).toContain('free text');
  });

  it('allows a label exactly at the limit, counting characters not UTF-16 units', () => {
    expect(cleanLabel('x'.repeat(80), 'item', 80)).toHaveLength(80);
    const emoji = '🚀'.repeat(80);
    expect(cleanLabel(emoji, 'item', 80)).toBe(emoji);
  });

  it('measures the trimmed label', () => {
    expect(cleanLabel(`  ${'x'.repeat(80)}  `, 'item', 80)).toBe('x'.repeat(80));
  });

  it('refuses a label over the limit with its length, the limit and where detail goes', () => {
    const error = refusal(() => cleanLabel('x'.repeat(81), 'item 2', 80));
    expect(error.code).toBe('TEXT_TOO_LONG');
    expect(error.message).toContain('item 2');
    expect(error.message).toContain('81 characters');
    expect(error.message).toContain('limit is 80');
    expect(error.message).toContain('brief');
  });

  it('has no length limit unless one is given', () => {
    expect(cleanLabel('x'.repeat(5000), 'title')).toHaveLength(5000);
  });
});

describe('cleanFreeText', () => {
  it('returns the text trimmed, and may be empty', () => {
    expect(cleanFreeText('  See [[#3]].\n', 'goal')).toBe('See [[#3]].');
    expect(cleanFreeText('   ', 'goal')).toBe('');
  });

  it('allows exactly the limit, measured after trimming', () => {
    expect(cleanFreeText(` ${'x'.repeat(FREE_TEXT_MAX)} `, 'goal')).toHaveLength(FREE_TEXT_MAX);
  });

  it('refuses text over the limit with TOO_LARGE', () => {
    const error = refusal(() => cleanFreeText('x'.repeat(FREE_TEXT_MAX + 1), 'comment'));
    expect(error.code).toBe('TOO_LARGE');
    expect(error.message).toContain('comment');
    expect(error.message).toContain('20001');
    expect(error.message).toContain('20000');
  });
});

describe('cleanItemLabels', () => {
  it('trims each label and keeps the order', () => {
    expect(cleanItemLabels([' B ', 'A', '  Prüfen 🚀'], [])).toEqual(['B', 'A', 'Prüfen 🚀']);
  });

  it('accepts an empty call', () => {
    expect(cleanItemLabels([], ['Existing'])).toEqual([]);
  });

  it('refuses two labels equal after trimming, quoting it', () => {
    const error = refusal(() => cleanItemLabels(['Deploy', ' Deploy '], []));
    expect(error.code).toBe('DUPLICATE_TEXT');
    expect(error.message).toContain('"Deploy"');
  });

  it('refuses a label equal to a live item', () => {
    const error = refusal(() => cleanItemLabels(['New', '  Ship it'], ['Ship it']));
    expect(error.code).toBe('DUPLICATE_TEXT');
    expect(error.message).toContain('"Ship it"');
    expect(error.message).toContain('already a live item');
  });

  it('treats labels differing in case as different', () => {
    expect(cleanItemLabels(['Ship', 'ship'], ['SHIP'])).toEqual(['Ship', 'ship']);
  });

  it('refuses an empty label, saying which one', () => {
    const error = refusal(() => cleanItemLabels(['A', '  '], []));
    expect(error.code).toBe('EMPTY_TEXT');
    expect(error.message).toContain('item 2 of 2');
  });

  it('refuses a label over 80 characters', () => {
    const error = refusal(() => cleanItemLabels(['x'.repeat(81)], []));
    expect(error.code).toBe('TEXT_TOO_LONG');
    expect(error.message).toContain('80');
  });

  it('refuses a label with a token', () => {
    expect(refusal(() => cleanItemLabels(['After [[#3]]'], [])).code).toBe('REF_IN_LABEL');
  });

  it('allows exactly 100 labels in one call and refuses 101', () => {
    expect(cleanItemLabels(labels(ITEMS_PER_CALL_MAX), [])).toHaveLength(100);
    const error = refusal(() => cleanItemLabels(labels(ITEMS_PER_CALL_MAX + 1), []));
    expect(error.code).toBe('TOO_LARGE');
    expect(error.message).toContain('101');
    expect(error.message).toContain('100');
  });

  it('allows a task to reach 500 live items and refuses going past', () => {
    const live = labels(450, 'Live');
    expect(cleanItemLabels(labels(50), live)).toHaveLength(50);
    const error = refusal(() => cleanItemLabels(labels(51), live));
    expect(error.code).toBe('TOO_LARGE');
    expect(error.message).toContain('450');
    expect(error.message).toContain('500');
    expect(error.message).toContain('at most 50 more');
  });

  it('checks the size of the call before reading any label', () => {
    expect(refusal(() => cleanItemLabels(['', ...labels(100)], [])).code).toBe('TOO_LARGE');
  });
});

describe('splitItemsText', () => {
  it('gives one label per line, trimmed, skipping blank lines', () => {
    expect(splitItemsText('Key charge.succeeded\n\n  Cover refunds  \n   \nRemove lookup\n')).toEqual([
      'Key charge.succeeded',
      'Cover refunds',
      'Remove lookup',
    ]);
  });

  it('accepts CRLF and lone CR line ends', () => {
    expect(splitItemsText('A\r\nB\r\n\r\nC\rD')).toEqual(['A', 'B', 'C', 'D']);
  });

  it('returns nothing for blank text', () => {
    expect(splitItemsText('')).toEqual([]);
    expect(splitItemsText(' \n \r\n')).toEqual([]);
  });

  it('keeps duplicates for cleanItemLabels to refuse', () => {
    expect(splitItemsText('A\nA')).toEqual(['A', 'A']);
  });
});

describe('cleanDomain', () => {
  it('accepts 1 to 8 segments and returns them trimmed', () => {
    expect(cleanDomain(' acme ')).toBe('acme');
    expect(cleanDomain('acme/checkout/billing')).toBe('acme/checkout/billing');
    expect(cleanDomain('a/b/c/d/e/f/g/h')).toBe('a/b/c/d/e/f/g/h');
    expect(cleanDomain('0ps/v1.2_beta-x')).toBe('0ps/v1.2_beta-x');
  });

  it.each([
    ['', 'empty'],
    ['a/b/c/d/e/f/g/h/i', 'nine segments'],
    ['/acme', 'leading slash'],
    ['acme/', 'trailing slash'],
    ['acme//checkout', 'empty segment'],
    ['acme/-checkout', 'segment starting with -'],
    ['acme/.hidden', 'segment starting with .'],
    ['acme/_x', 'segment starting with _'],
    ['acme checkout', 'space'],
    ['acme/chéckout', 'non-ASCII letter'],
    ['acme\\checkout', 'backslash'],
  ])('refuses %j (%s) with an example', (raw) => {
    const error = refusal(() => cleanDomain(raw));
    expect(error.code).toBe('INVALID_DOMAIN');
    expect(error.message).toContain('"acme/checkout/billing"');
    expect(error.message).toContain('1 to 8 segments');
  });

  it('suggests the lower-case form when that is the only fix', () => {
    const error = refusal(() => cleanDomain('Acme/Checkout'));
    expect(error.message).toContain('Did you mean "acme/checkout"?');
  });

  it('does not suggest a form that would still be refused', () => {
    expect(refusal(() => cleanDomain('Acme Checkout')).message).not.toContain('Did you mean');
  });
});

describe('inScope', () => {
  it('covers the scope itself and everything below it', () => {
    expect(inScope('acme/checkout', 'acme/checkout')).toBe(true);
    expect(inScope('acme/checkout/billing', 'acme/checkout')).toBe(true);
    expect(inScope('acme/checkout/billing/x', 'acme')).toBe(true);
  });

  it('does not cover siblings sharing a prefix, or parents', () => {
    expect(inScope('acme/checkoutx', 'acme/checkout')).toBe(false);
    expect(inScope('acme', 'acme/checkout')).toBe(false);
    expect(inScope('other/checkout', 'acme')).toBe(false);
  });
});
