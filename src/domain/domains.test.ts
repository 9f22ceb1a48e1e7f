import { describe, expect, it } from 'vitest';
import { refusal } from '../../test/fixtures/refusal.js';
import { cleanDomain, inScope } from './domains.js';

describe('cleanDomain', () => {
  it('accepts 1 to 8 segments and returns them trimmed', () => {
    expect(cleanDomain(' acme ')).toBe('acme');
    expect(cleanDomain('acme/checkout/billing')).toBe('acme/checkout/billing');
    expect(cleanDomain('a/b/c/d/e/f/g/h')).toBe('a/b/c/d/e/f/g/h');
    expect(cleanDomain('0ps/v1.2_beta-x')).toBe('0ps/v1.2_beta-x');
  });

  it.each([
    ['', 'empty'],
    ['a/b/c/d/e/f/g/h/i', 'nine segments'],
    ['/acme', 'leading slash'],
    ['acme/', 'trailing slash'],
    ['acme//checkout', 'empty segment'],
    ['acme/-checkout', 'segment starting with -'],
    ['acme/.hidden', 'segment starting with .'],
    ['acme/_x', 'segment starting with _'],
    ['acme checkout', 'space'],
    ['acme/chéckout', 'non-ASCII letter'],
    ['acme\\checkout', 'backslash'],
  ])('refuses %j (%s) with an example', (raw) => {
    const error = refusal(() => cleanDomain(raw));
    expect(error.code).toBe('INVALID_DOMAIN');
    expect(error.message).toContain('"acme/checkout/billing"');
    expect(error.message).toContain('1 to 8 segments');
  });

  it('suggests the lower-case form when that is the only fix', () => {
    const error = refusal(() => cleanDomain('Acme/Checkout'));
    expect(error.message).toContain('Did you mean "acme/checkout"?');
  });

  it('does not suggest a form that would still be refused', () => {
    expect(refusal(() => cleanDomain('Acme Checkout')).message).not.toContain('Did you mean');
  });
});

describe('inScope', () => {
  it('covers the scope itself and everything below it', () => {
    expect(inScope('acme/checkout', 'acme/checkout')).toBe(true);
    expect(inScope('acme/checkout/billing', 'acme/checkout')).toBe(true);
    expect(inScope('acme/checkout/billing/x', 'acme')).toBe(true);
  });

  it('does not cover siblings sharing a prefix, or parents', () => {
    expect(inScope('acme/checkoutx', 'acme/checkout')).toBe(false);
    expect(inScope('acme', 'acme/checkout')).toBe(false);
    expect(inScope('other/checkout', 'acme')).toBe(false);
  });
});
