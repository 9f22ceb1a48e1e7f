import { describe, expect, it } from 'vitest';
import { LOOPBACK_CLIENT, loadConnectionLimits, oneClientPerMachine } from './connection-limits.js';

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

describe('oneClientPerMachine', () => {
  it('counts every loopback address as one client, and any other address as itself', () => {
    for (const address of ['127.0.0.1', '127.0.0.2', '127.255.3.9', '::1', '::ffff:127.0.0.1', '::ffff:127.8.0.1']) {
      expect(oneClientPerMachine(address), address).toBe(LOOPBACK_CLIENT);
    }
    expect(oneClientPerMachine('::ffff:10.0.0.7')).toBe('10.0.0.7');
    expect(oneClientPerMachine('192.168.1.20')).toBe('192.168.1.20');
    expect(oneClientPerMachine('128.0.0.1')).toBe('128.0.0.1');
    expect(oneClientPerMachine('::2')).toBe('::2');
  });
});
