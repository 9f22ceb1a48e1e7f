import { describe, expect, it } from 'vitest';
import { loadSubscriptionLimits } from './subscription-limits.js';

describe('loadSubscriptionLimits', () => {
  it('takes the defaults, and whole numbers above 0 from the environment', () => {
    expect(loadSubscriptionLimits({})).toEqual({ maxSocketsPerClient: 64, maxSocketsPerToken: 64, maxSockets: 1_024, maxSubscriptionsPerSocket: 32, maxSubscriptions: 4_096,
      fanOutExecutionsPerToken: 1, fanOutExecutions: 4, fanOutBytesPerToken: 32 * 1024 * 1024, fanOutBytes: 128 * 1024 * 1024, fanOutWaitMs: 10_000,
    });
    expect(loadSubscriptionLimits({ TASKBASE_WS_MAX_SUBSCRIPTIONS_PER_SOCKET: '5' }).maxSubscriptionsPerSocket).toBe(5);
  });

  it('refuses anything else with one line naming the variable and what it takes', () => {
    for (const value of ['0', '-3', '2.5', 'many']) {
      expect(() => loadSubscriptionLimits({ TASKBASE_WS_MAX_SOCKETS_PER_TOKEN: value }))
        .toThrow(`TASKBASE_WS_MAX_SOCKETS_PER_TOKEN must be a whole number above 0; got "${value}".`);
    }
  });
});
