import { describe, expect, it } from 'vitest';
import type { ChangeFeed } from '../kernel/changes/change-feed.js';
import type { ChangeEvent } from '../kernel/changes/change-events.js';
import type { ChangeAction } from '../../domain/history.js';
import { FeedWorkWakeups } from './work-wakeups.js';

/** A feed the test speaks for: `say` delivers a change to whoever subscribed. */
function fakeFeed() {
  let listener: ((event: ChangeEvent) => void) | null = null;
  const feed: ChangeFeed = {
    subscribe: (heard) => { listener = heard; return () => { listener = null; }; },
    onGrown: () => () => undefined,
    ready: async () => undefined,
    close: async () => undefined,
  };
  const say = (action: ChangeAction, domain: string | null) => listener?.({
    entity: 'TASK', id: '1', action, madeBy: null, at: '2026-12-07T00:00:00.000Z', memory: { kind: 'TASK', domain },
  } as ChangeEvent);
  return { feed, say };
}

const woken = (watches: { woken: boolean }[]) => watches.map((watch) => watch.woken);

describe('FeedWorkWakeups', () => {
  it('wakes the longest-waiting watch of the domain per change that may free work, not every watch', () => {
    const { feed, say } = fakeFeed();
    const wakeups = new FeedWorkWakeups(feed);
    const watches = ['acme', 'acme/billing', 'other', 'acme'].map((domain) => wakeups.watch(domain));
    say('ITEM_STATE', 'acme/billing');
    expect(woken(watches)).toEqual([true, false, false, false]);
    say('CLAIM_RELEASED', 'acme/billing');
    expect(woken(watches)).toEqual([true, true, false, false]);
    // Out of every watch's scope but "acme"'s: the last one left.
    say('ITEMS_ADDED', 'acme/shipping');
    expect(woken(watches)).toEqual([true, true, false, true]);
  });

  it('wakes nobody for a change that can free no work, or for a plan', () => {
    const { feed, say } = fakeFeed();
    const wakeups = new FeedWorkWakeups(feed);
    const watches = [wakeups.watch('acme'), wakeups.watch('acme')];
    for (const action of ['ITEM_CLAIMED', 'CLAIM_RENEWED', 'COMMENT_ADDED', 'ITEM_RENAMED', 'ITEM_MOVED', 'ITEM_LINKED'] as const) say(action, 'acme');
    say('ITEM_STATE', null);
    expect(woken(watches)).toEqual([false, false]);
  });

  it('passes a wake-up on to the next waiting watch of the domain, and skips closed ones', () => {
    const { feed, say } = fakeFeed();
    const wakeups = new FeedWorkWakeups(feed);
    const [first, second, third] = [wakeups.watch('acme'), wakeups.watch('acme'), wakeups.watch('acme')];
    say('ITEM_STATE', 'acme');
    second!.close();
    first!.passOn();
    expect(woken([first!, second!, third!])).toEqual([true, false, true]);
  });

  it('passes a wake-up on to a watch under the passing watch\'s scope, and only when passing', () => {
    const { feed, say } = fakeFeed();
    const wakeups = new FeedWorkWakeups(feed);
    const [broad, narrow] = [wakeups.watch('acme'), wakeups.watch('acme/billing')];
    say('ITEM_STATE', 'acme');
    expect(woken([broad, narrow])).toEqual([true, false]);
    broad.passOn();
    expect(woken([broad, narrow])).toEqual([true, true]);
  });

  it('resolves a waiting watch at once when woken, and false when its time is up', async () => {
    const { feed, say } = fakeFeed();
    const wakeups = new FeedWorkWakeups(feed);
    const [early, late] = [wakeups.watch('acme'), wakeups.watch('acme')];
    const answers = [early.changed(5_000), late.changed(20)];
    say('ITEM_STATE', 'acme');
    expect(await Promise.all(answers)).toEqual([true, false]);
  });
});
