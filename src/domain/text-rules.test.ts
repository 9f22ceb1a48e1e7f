import { describe, expect, it } from 'vitest';
import { refusal } from '../../test/fixtures/refusal.js';
import {
  FREE_TEXT_MAX,
  ITEMS_PER_CALL_MAX,
  ITEMS_PER_TASK_MAX,
  ITEM_LABEL_MAX,
  cleanFreeText,
  cleanItemLabels,
  cleanLabel,
  cleanStepText,
  labelKey,
  normalizeText,
  sameLabel,
  splitItemsText,
  textLength,
} from './text-rules.js';


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

describe('invisible characters', () => {
  it.each([
    ['zero-width space', '\u200B'],
    ['zero-width joiners and a word joiner', '\u200C\u200D\u2060'],
    ['a byte-order mark and a soft hyphen', '\uFEFF\u00AD'],
    ['format characters among spaces', ' \u2061 \u2063\u206A '],
    ['a Hangul filler and a variation selector', '\u3164\uFE0F'],
  ])('a label of only %s is EMPTY_TEXT, saying it is invisible', (_name, raw) => {
    const error = refusal(() => cleanLabel(raw, 'title'));
    expect(error.code).toBe('EMPTY_TEXT');
    expect(error.message).toContain('only invisible characters');
    expect(error.message).toContain('title');
  });

  it('trims invisible characters at the ends and keeps those inside (a ZWJ emoji, Persian ZWNJ)', () => {
    expect(cleanLabel('\u200BShip it\u2060 ', 'title')).toBe('Ship it');
    expect(cleanLabel('Family 👨\u200D👩\u200D👧', 'title')).toBe('Family 👨\u200D👩\u200D👧');
    expect(cleanLabel('می\u200Cخواهم', 'title')).toBe('می\u200Cخواهم');
  });

  it('reads labels differing only in invisible characters or whitespace runs as one', () => {
    expect(labelKey('De\u200Bploy  the\u00A0app')).toBe('Deploy the app');
    expect(sameLabel('Deploy', 'De\u200Dploy\uFEFF')).toBe(true);
    expect(sameLabel('Deploy', 'deploy')).toBe(false);
  });
});

describe('Unicode normalisation', () => {
  const composed = 'Caf\u00E9 r\u00E9sum\u00E9';
  const decomposed = 'Cafe\u0301 re\u0301sume\u0301';

  it('stores labels and free text in NFC', () => {
    expect(cleanLabel(decomposed, 'title')).toBe(composed);
    expect(cleanFreeText(` ${decomposed} `, 'goal')).toBe(composed);
    expect(normalizeText(decomposed, 'x')).toBe(composed);
  });

  it('counts an accented letter once whichever way it was typed', () => {
    expect(cleanLabel(decomposed, 'item', 11)).toBe(composed);
  });

  it('refuses the NFD form of a live label, and NFC and NFD forms sent together', () => {
    expect(refusal(() => cleanItemLabels([decomposed], [composed])).code).toBe('DUPLICATE_TEXT');
    expect(refusal(() => cleanItemLabels([composed, decomposed], [])).code).toBe('DUPLICATE_TEXT');
  });

  it('refuses zero-width look-alikes of a live label or of one sent beside it', () => {
    const live = refusal(() => cleanItemLabels(['Ship\u200B it'], ['Ship it']));
    expect(live.code).toBe('DUPLICATE_TEXT');
    expect(live.message).toContain('already a live item');
    expect(refusal(() => cleanItemLabels(['Ship it', 'Ship\u2060 it'], [])).code).toBe('DUPLICATE_TEXT');
  });
});

describe('lone surrogates', () => {
  it.each([
    ['a high surrogate alone', 'Ship \uD83D it'],
    ['a low surrogate alone', '\uDE80 Ship'],
    ['a high surrogate at the end', 'Ship\uD83D'],
  ])('refuses %s with BAD_USER_INPUT, saying what to send', (_name, raw) => {
    for (const run of [() => cleanLabel(raw, 'title'), () => cleanFreeText(raw, 'goal')]) {
      const error = refusal(run);
      expect(error.code).toBe('BAD_USER_INPUT');
      expect(error.message).toContain('lone UTF-16 surrogate');
      expect(error.message).toContain('Send valid Unicode');
    }
  });

  it('accepts a whole surrogate pair', () => {
    expect(cleanLabel('Launch \uD83D\uDE80', 'title')).toBe('Launch 🚀');
  });
});

describe('line breaks in a label', () => {
  it.each([['LF', '\n'], ['CR', '\r'], ['CRLF', '\r\n'], ['U+2028', '\u2028'], ['NEL', '\u0085']])(
    'refuses a label with a %s inside it, pointing to one label per item',
    (_name, lineBreak) => {
      const error = refusal(() => cleanItemLabels([`First${lineBreak}Second`], []));
      expect(error.code).toBe('BAD_USER_INPUT');
      expect(error.message).toContain('line break');
      expect(error.message).toContain('item 1 of 1');
      expect(error.message).toContain('itemsText');
    },
  );

  it('still trims line breaks at the ends', () => {
    expect(cleanLabel('\nShip it\r\n', 'title')).toBe('Ship it');
  });

  it('leaves line breaks in free text alone', () => {
    expect(cleanFreeText('First line\nSecond line', 'goal')).toBe('First line\nSecond line');
  });
});

describe('bidi controls in a label', () => {
  it('are refused with BAD_USER_INPUT naming the character, inside or at an end', () => {
    for (const raw of ['Pay \u202Eemosewa', '\u202EPay', 'Pay\u200F', ' \u2066 ']) {
      const error = refusal(() => cleanLabel(raw, 'title'));
      expect(error.code).toBe('BAD_USER_INPUT');
      expect(error.message).toContain('bidi control');
      expect(error.message).toContain('title');
    }
    expect(refusal(() => cleanItemLabels(['Fine', 'Pay \u202Eemosewa'], [])).message).toContain('item 2 of 2 sent holds U+202E RIGHT-TO-LEFT OVERRIDE');
    expect(refusal(() => cleanStepText('Step \u2067one', 'step 1')).message).toContain('U+2067 RIGHT-TO-LEFT ISOLATE');
  });

  it('are free text\'s to carry', () => {
    expect(cleanFreeText('Quote: \u202Bשלום\u202C', 'goal')).toBe('Quote: \u202Bשלום\u202C');
  });
});

describe('control characters and NUL', () => {
  it('are refused in labels, free text and plan steps', () => {
    for (const run of [() => cleanLabel('a\u0000', 'title'), () => cleanFreeText('a\u0000', 'goal'), () => cleanStepText('a\u0000', 'step 1')]) {
      expect(refusal(run).message).toContain('NUL character');
    }
    for (const run of [() => cleanLabel('a\u001B', 'title'), () => cleanFreeText('a\u0007', 'goal'), () => cleanStepText('a\u0008', 'step 1')]) {
      expect(refusal(run).message).toContain('control character');
    }
  });
});

describe('NFKC for duplicates', () => {
  it('reads fullwidth letters, ligatures and compatibility forms as the plain label', () => {
    expect(labelKey('Ｄｅｐｌｏｙ')).toBe('Deploy');
    expect(sameLabel('ﬁx the build', 'fix the build')).toBe(true);
    expect(sameLabel('Step ①', 'Step 1')).toBe(true);
    expect(sameLabel('Ｄｅｐｌｏｙ', 'deploy')).toBe(false);
  });

  it('refuses a fullwidth look-alike of a live label or of one sent beside it', () => {
    expect(refusal(() => cleanItemLabels(['Ｄｅｐｌｏｙ'], ['Deploy'])).code).toBe('DUPLICATE_TEXT');
    expect(refusal(() => cleanItemLabels(['Deploy', 'Ｄｅｐｌｏｙ'], [])).code).toBe('DUPLICATE_TEXT');
  });

  it('stores the label as it was sent', () => {
    expect(cleanLabel('Ｄｅｐｌｏｙ', 'title')).toBe('Ｄｅｐｌｏｙ');
    expect(cleanItemLabels(['ﬁx'], [])).toEqual(['ﬁx']);
  });
});

describe('a label of only combining marks', () => {
  it.each([['a lone acute accent', '\u0301'], ['several marks', '\u0301\u0308 \u0327'], ['an enclosing mark', '\u20DD']])(
    'is EMPTY_TEXT: %s',
    (_name, raw) => {
      const error = refusal(() => cleanLabel(raw, 'title'));
      expect(error.code).toBe('EMPTY_TEXT');
      expect(error.message).toContain('only combining marks');
    },
  );

  it('keeps marks on a letter', () => {
    expect(cleanLabel('e\u0301', 'title')).toBe('\u00E9');
    expect(cleanLabel('नमस्ते', 'title')).toBe('नमस्ते');
  });
});
