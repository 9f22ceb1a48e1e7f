import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkTargetAddresses, checkWebhookSecret, cleanWebhookUrl, isInternalAddress, retryDelayMs, webhookSignature } from './webhooks.js';

const codeOf = (run: () => unknown): string | undefined => {
  try {
    run();
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
};

describe('webhook targets', () => {
  it('takes http and https URLs only, without credentials', () => {
    expect(cleanWebhookUrl(' https://hooks.example.com/x ').href).toBe('https://hooks.example.com/x');
    for (const bad of ['ftp://example.com/', 'file:///etc/passwd', 'javascript:alert(1)', 'not a url', 'https://user:pw@example.com/', `https://example.com/${'a'.repeat(2000)}`]) {
      expect(codeOf(() => cleanWebhookUrl(bad)), bad).toBe('BAD_USER_INPUT');
    }
  });

  it('allows global unicast addresses only: loopback, private, link-local and reserved ranges are internal, in every IPv6 form', () => {
    const internal = [
      '127.0.0.1', '127.9.9.9', '10.0.0.1', '172.16.5.4', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1',
      '192.0.0.8', '192.0.2.1', '198.18.0.1', '198.51.100.7', '203.0.113.9', '240.0.0.1', '255.255.255.255',
      '::1', '::', 'fe80::1', 'fd00::1', 'fec0::1', 'ff02::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '::ffff:7f00:1',
      // IPv4-compatible, 6to4, Teredo, NAT64 (well-known and local-use), SIIT: each can carry an internal IPv4 address.
      '::7f00:1', '::127.0.0.1', '::a00:1', '2002:7f00:1::', '2002:a00:1::1', '2001::1', '2001:0:4136:e378:8000:63bf:3fff:fdd2',
      '64:ff9b::7f00:1', '64:ff9b:1::a00:1', '::ffff:0:7f00:1',
      // Discard, documentation, benchmarking, ORCHID, segment routing, and outside global unicast 2000::/3.
      '100::1', '2001:db8::1', '3fff::1', '2001:2::1', '2001:20::1', '5f00::1', '4000::1', '::2',
      'not an address',
    ];
    for (const address of internal) expect(isInternalAddress(address), address).toBe(true);
    for (const address of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700::1111', '2a00:1450:4001:80b::200e', '::ffff:8.8.8.8']) {
      expect(isInternalAddress(address), address).toBe(false);
    }
  });

  it('refuses an internal target without saying where it resolves', () => {
    let message = '';
    try {
      checkTargetAddresses('metadata.internal', ['10.1.2.3'], new Set());
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/metadata\.internal is not allowed/);
    expect(message).not.toContain('10.1.2.3');
  });

  it('refuses a name when any address it resolves to is internal, unless the host or that address is allowed', () => {
    expect(codeOf(() => checkTargetAddresses('mixed.example', ['93.184.216.34', '10.0.0.1'], new Set()))).toBe('BAD_USER_INPUT');
    expect(codeOf(() => checkTargetAddresses('mixed.example', ['93.184.216.34', '10.0.0.1'], new Set(['10.0.0.1'])))).toBeUndefined();
    expect(codeOf(() => checkTargetAddresses('hooks.internal', ['10.0.0.1'], new Set(['hooks.internal'])))).toBeUndefined();
    expect(codeOf(() => checkTargetAddresses('public.example', ['93.184.216.34'], new Set()))).toBeUndefined();
    expect(codeOf(() => checkTargetAddresses('nowhere.example', [], new Set()))).toBe('BAD_USER_INPUT');
  });
});

describe('webhook secrets and signatures', () => {
  it('needs a secret of 16 to 200 characters', () => {
    expect(codeOf(() => checkWebhookSecret('x'.repeat(15)))).toBe('BAD_USER_INPUT');
    expect(checkWebhookSecret('x'.repeat(16))).toBe('x'.repeat(16));
    expect(codeOf(() => checkWebhookSecret('x'.repeat(201)))).toBe('BAD_USER_INPUT');
  });

  it('signs "<timestamp>.<delivery id>.<body>" with HMAC-SHA256', () => {
    const expected = createHmac('sha256', 'sixteen-chars-ok').update('1700000000.42.{"a":1}').digest('hex');
    expect(webhookSignature('sixteen-chars-ok', 1700000000, '42', '{"a":1}')).toBe(`sha256=${expected}`);
    expect(webhookSignature('sixteen-chars-ok', 1700000000, '43', '{"a":1}')).not.toBe(`sha256=${expected}`);
  });
});

describe('webhook retries', () => {
  it('doubles the wait after each failure, up to an hour', () => {
    const retry = { backoffMs: 1000, maxAttempts: 8 };
    expect([1, 2, 3, 4].map((n) => retryDelayMs(retry, n))).toEqual([1000, 2000, 4000, 8000]);
    expect(retryDelayMs(retry, 40)).toBe(3_600_000);
  });
});
