import { describe, expect, it } from 'vitest';
import { hostnameOf, loadOriginPolicy } from './origin-policy.js';

describe('the Host and Origin policy', () => {
  const local = loadOriginPolicy({}, '127.0.0.1');

  it('reads host names with and without ports and brackets', () => {
    expect(hostnameOf('LocalHost:4000')).toBe('localhost');
    expect(hostnameOf('[::1]:4000')).toBe('::1');
    expect(hostnameOf('::1')).toBe('::1');
    expect(hostnameOf('127.0.0.1')).toBe('127.0.0.1');
    expect(hostnameOf('evil.example/x')).toBeNull();
    expect(hostnameOf(undefined)).toBeNull();
  });

  it('answers loopback names on any port, and refuses every other Host', () => {
    for (const host of ['localhost:4000', '127.0.0.1:4000', '[::1]:4000', 'localhost']) expect(local.refusal({ host })).toBeNull();
    expect(local.refusal({ host: 'attacker.example:4000' })?.header).toBe('host');
    expect(local.refusal({})?.header).toBe('host');
  });

  it('allows no Origin and the page\'s own origin, and refuses a foreign or null one', () => {
    expect(local.refusal({ host: '127.0.0.1:4000' })).toBeNull();
    expect(local.refusal({ host: '127.0.0.1:4000', origin: 'http://127.0.0.1:4000' })).toBeNull();
    expect(local.refusal({ host: 'localhost:4000', origin: 'http://127.0.0.1:4000' })?.header).toBe('origin');
    expect(local.refusal({ host: '127.0.0.1:4000', origin: 'http://attacker.example' })?.message).toContain('TASKBASE_ALLOWED_ORIGINS');
    expect(local.refusal({ host: '127.0.0.1:4000', origin: 'null' })?.header).toBe('origin');
  });

  it('adds the bound host and the configured names and origins', () => {
    const policy = loadOriginPolicy({ TASKBASE_ALLOWED_HOSTS: 'tasks.example.com', TASKBASE_ALLOWED_ORIGINS: 'https://ui.example.com/' }, '10.0.0.5');
    expect(policy.refusal({ host: '10.0.0.5:4000' })).toBeNull();
    expect(policy.refusal({ host: 'tasks.example.com' })).toBeNull();
    expect(policy.refusal({ host: 'tasks.example.com', origin: 'https://ui.example.com' })).toBeNull();
    expect(policy.refusal({ host: 'tasks.example.com', origin: 'https://other.example.com' })?.header).toBe('origin');
    expect(loadOriginPolicy({}, '0.0.0.0').allowedHosts).not.toContain('0.0.0.0');
    expect(loadOriginPolicy({ TASKBASE_ALLOWED_HOSTS: '*' }, '0.0.0.0').refusal({ host: 'anything.example' })).toBeNull();
  });

  it('refuses a malformed entry in one line that names the variable', () => {
    expect(() => loadOriginPolicy({ TASKBASE_ALLOWED_HOSTS: 'bad host/' }, '127.0.0.1')).toThrow(/^TASKBASE_ALLOWED_HOSTS has an entry "bad host\/"/);
    expect(() => loadOriginPolicy({ TASKBASE_ALLOWED_ORIGINS: 'ftp://x' }, '127.0.0.1')).toThrow(/^TASKBASE_ALLOWED_ORIGINS/);
  });

  it('quotes a refused header back only when it is a plain host or origin', () => {
    expect(local.refusal({ host: 'attacker.example:4000' })?.message).toContain('"attacker.example:4000"');
    expect(local.refusal({ host: 'x"><script>alert(1)</script>' })?.message).not.toContain('<script');
    expect(local.refusal({ host: '127.0.0.1', origin: 'http://a.example/"<img>' })?.message).not.toContain('<img');
  });
});
