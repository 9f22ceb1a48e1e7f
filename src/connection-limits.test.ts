import { describe, expect, it } from 'vitest';
import { loadConnectionLimits } from './connection-limits.js';

describe('loadConnectionLimits', () => {
  it('defaults to seconds, not minutes', () => {
    const limits = loadConnectionLimits({}, null);
    expect(limits).toEqual({
      headersTimeoutMs: 10_000, bodyTimeoutMs: 30_000, idleTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000,
      keepAliveMaxRequests: 1_000, maxConnectionsPerClient: 128, maxConnections: 4_096, maxRequestsPerToken: 256,
    });
  });

  it('keeps the global cap below the open-file limit, leaving files for the database and logs', () => {
    expect(loadConnectionLimits({}, 1_024).maxConnections).toBe(896);
    expect(loadConnectionLimits({}, 200).maxConnections).toBe(100);
    expect(loadConnectionLimits({ TASKBASE_MAX_CONNECTIONS: '50' }, 1_024).maxConnections).toBe(50);
    expect(loadConnectionLimits({}, 100_000).maxConnections).toBe(4_096);
  });

  it('reads each variable, and refuses one that is not a whole number above 0, naming it', () => {
    expect(loadConnectionLimits({ TASKBASE_BODY_TIMEOUT_MS: '2500', TASKBASE_HEADERS_TIMEOUT_MS: '1000' }, null)).toMatchObject({ bodyTimeoutMs: 2_500, headersTimeoutMs: 1_000 });
    for (const raw of ['0', '-1', '1.5', 'ten']) {
      expect(() => loadConnectionLimits({ TASKBASE_IDLE_TIMEOUT_MS: raw }, null)).toThrow(`TASKBASE_IDLE_TIMEOUT_MS must be a whole number above 0; got "${raw}"`);
    }
  });

  it('refuses a headers timeout above the body timeout', () => {
    expect(() => loadConnectionLimits({ TASKBASE_HEADERS_TIMEOUT_MS: '5000', TASKBASE_BODY_TIMEOUT_MS: '1000' }, null)).toThrow(/must not be above TASKBASE_BODY_TIMEOUT_MS/);
  });
});
