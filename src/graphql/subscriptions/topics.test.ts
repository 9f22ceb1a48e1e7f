import { describe, expect, it } from 'vitest';
import { createChangePubSub, TOPIC } from './topics.js';

describe('the change pub/sub knows which topics have an open subscription', () => {
  it('from the moment a subscription starts until it ends, a task topic counted under TASK_CHANGED', async () => {
    const pubSub = createChangePubSub();
    expect(pubSub.listening(TOPIC.TASK)).toBe(false);
    const first = pubSub.subscribe(TOPIC.TASK, '7')[Symbol.asyncIterator]();
    const second = pubSub.subscribe(TOPIC.TASK, '8')[Symbol.asyncIterator]();
    const heard = first.next();
    void second.next();
    expect(pubSub.listening(TOPIC.TASK)).toBe(true);
    expect(pubSub.listening(TOPIC.SESSION)).toBe(false);
    pubSub.publish(TOPIC.TASK, '7', { entity: 'TASK', id: '7', action: 'ITEM_STATE', madeBy: null, at: 'now', kind: 'TASK', domain: null });
    expect((await heard).value.id).toBe('7');
    await first.return?.();
    expect(pubSub.listening(TOPIC.TASK)).toBe(true);
    await second.return?.();
    expect(pubSub.listening(TOPIC.TASK)).toBe(false);
  });
});
