/**
 * Domains: the path every memory lives under, e.g. "acme/checkout/billing".
 * What a valid one looks like, and which domains a scope covers.
 */
import { DomainError } from './errors.js';

/** A whole domain path, in characters. */
const DOMAIN_MAX = 200;

const DOMAIN_SEGMENT = '[a-z0-9][a-z0-9._-]*';
const DOMAIN_PATTERN = new RegExp(`^${DOMAIN_SEGMENT}(?:/${DOMAIN_SEGMENT}){0,7}$`);

/** Trims a domain and checks it is 1..8 segments of [a-z0-9][a-z0-9._-]* joined by '/'. Returns it trimmed. */
export function cleanDomain(raw: string): string {
  const domain = raw.trim();
  if (domain.length > DOMAIN_MAX) {
    throw new DomainError('INVALID_DOMAIN', `domain is ${domain.length} characters; the limit is ${DOMAIN_MAX}. Use shorter segments, e.g. "acme/checkout/billing".`, { field: 'domain', length: domain.length, limit: DOMAIN_MAX });
  }
  if (DOMAIN_PATTERN.test(domain)) return domain;
  // Upper case is the commonest slip; offer the fix when it is the only one.
  const lower = domain.toLowerCase();
  const hint = lower !== domain && DOMAIN_PATTERN.test(lower) ? ` Did you mean "${lower}"?` : '';
  throw new DomainError(
    'INVALID_DOMAIN',
    `domain "${domain}" is not valid: a domain is 1 to 8 segments joined by '/', each of lower-case letters, digits, '.', '_' or '-' ` +
      `and starting with a letter or digit, e.g. "acme/checkout/billing".${hint}`,
    { field: 'domain', domain },
  );
}

/** True when `domain` is `scope` or below it ("acme/checkout" covers "acme/checkout/billing", not "acme/checkoutx"). */
export function inScope(domain: string, scope: string): boolean {
  return domain === scope || domain.startsWith(`${scope}/`);
}
