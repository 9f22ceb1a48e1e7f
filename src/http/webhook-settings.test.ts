import { describe, expect, it } from 'vitest';
import { loadWebhookSettings } from './webhook-settings.js';

describe('TASKBASE_WEBHOOK_* settings', () => {
  it('default to no internal hosts, 1 s backoff, 8 attempts and a 10 s timeout', () => {
    expect(loadWebhookSettings({})).toEqual({ allowedHosts: new Set(), backoffMs: 1000, maxAttempts: 8, timeoutMs: 10_000 });
  });

  it('read hosts and addresses, lower-cased, IPv6 with or without brackets', () => {
    expect(loadWebhookSettings({ TASKBASE_WEBHOOK_ALLOWED_HOSTS: ' 127.0.0.1, Hooks.Internal ,[::1]' }).allowedHosts).toEqual(new Set(['127.0.0.1', 'hooks.internal', '::1']));
  });

  it('refuse what they cannot mean, in one line naming the variable', () => {
    for (const [name, value] of [
      ['TASKBASE_WEBHOOK_ALLOWED_HOSTS', 'http://127.0.0.1'], ['TASKBASE_WEBHOOK_ALLOWED_HOSTS', '127.0.0.1:8080'], ['TASKBASE_WEBHOOK_ALLOWED_HOSTS', '*'],
      ['TASKBASE_WEBHOOK_BACKOFF_MS', '0'], ['TASKBASE_WEBHOOK_BACKOFF_MS', 'fast'], ['TASKBASE_WEBHOOK_MAX_ATTEMPTS', '101'], ['TASKBASE_WEBHOOK_TIMEOUT_MS', '5'],
    ]) {
      expect(() => loadWebhookSettings({ [name]: value }), `${name}=${value}`).toThrow(new RegExp(`^${name} must be .*; got "${value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"`));
    }
  });
});
