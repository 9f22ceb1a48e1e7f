/** The caps that give every list a reader can ask for a bound (src/graphql/execution/query-cost.ts counts on them). */
import { describe, expect, it } from 'vitest';
import { refusal } from '../../test/fixtures/refusal.js';
import { BRIEF_DEPENDS_ON_MAX, checkBriefItemCount, cleanBrief } from './briefs.js';
import { REFS_PER_TEXT_MAX, checkFreeText } from './refs.js';
import { HELPERS_PER_SESSION_MAX, checkHelperCount } from './session-limits.js';
import { LINKS_PER_ITEM_MAX, checkLinkCount } from './task-rules.js';

const ids = new Set(Array.from({ length: 300 }, (_, i) => String(i + 1)));
const cite = (from: number, count: number) => Array.from({ length: count }, (_, i) => `[[#${from + i}]]`).join(' ');

describe('list limits', () => {
  it('a text cites at most 100 distinct items; citing one item often counts once', () => {
    expect(() => checkFreeText(cite(1, REFS_PER_TEXT_MAX), 'goal', ids)).not.toThrow();
    expect(() => checkFreeText(`${cite(1, 50)} ${cite(1, 50)}`, 'goal', ids)).not.toThrow();
    const error = refusal(() => checkFreeText(cite(1, REFS_PER_TEXT_MAX + 1), 'goal', ids));
    expect(error.code).toBe('TOO_LARGE');
    expect(error.message).toContain('goal cites 101');
  });

  it('a brief cites at most 100 distinct items across its texts, and waits for at most 20', () => {
    const base = { goal: cite(1, 60), context: cite(61, 40), steps: 's', pitfalls: 'p', doneWhen: 'd', dependsOn: [] };
    expect(() => cleanBrief(base, ids)).not.toThrow();
    expect(refusal(() => cleanBrief({ ...base, steps: cite(101, 1) }, ids)).code).toBe('TOO_LARGE');
    const waits = (count: number) => Array.from({ length: count }, (_, i) => ({ item: String(200 + i) }));
    expect(() => cleanBrief({ ...base, context: 'c', dependsOn: waits(BRIEF_DEPENDS_ON_MAX) }, ids)).not.toThrow();
    expect(refusal(() => cleanBrief({ ...base, context: 'c', dependsOn: waits(BRIEF_DEPENDS_ON_MAX + 1) }, ids)).code).toBe('TOO_LARGE');
    expect(refusal(() => checkBriefItemCount(101)).code).toBe('TOO_LARGE');
  });

  it('an item links at most 100 memories in all, and the message says how many more fit', () => {
    expect(() => checkLinkCount('7', 60, 40)).not.toThrow();
    const error = refusal(() => checkLinkCount('7', 60, 41));
    expect(error.code).toBe('TOO_LARGE');
    expect(error.message).toContain(`at most ${LINKS_PER_ITEM_MAX - 60} more`);
  });

  it('a session starts at most 100 helpers', () => {
    expect(() => checkHelperCount('s', HELPERS_PER_SESSION_MAX - 1)).not.toThrow();
    expect(refusal(() => checkHelperCount('s', HELPERS_PER_SESSION_MAX)).code).toBe('TOO_LARGE');
  });
});
