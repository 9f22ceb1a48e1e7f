/**
 * Webhooks: what a target may be, how a delivery is signed, and when a
 * failed one is tried again. Plain functions; the sender and the dispatcher
 * (services/webhooks) apply them.
 */
import { createHmac } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import { DomainError } from './errors.js';

const SECRET_MIN = 16;
const SECRET_MAX = 200;
const URL_MAX = 2_000;

/**
 * The URL a webhook is created with, parsed: http or https only, no
 * credentials in it (they would be logged and shown by `webhooks`), at most
 * URL_MAX characters.
 */
export function cleanWebhookUrl(raw: string): URL {
  const text = raw.trim();
  let url: URL | null = null;
  try {
    url = text.length <= URL_MAX ? new URL(text) : null;
  } catch {
    url = null;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new DomainError('BAD_USER_INPUT', `url must be an http:// or https:// URL of at most ${URL_MAX} characters, e.g. "https://hooks.example.com/taskbase"; got "${text.slice(0, 100)}".`, { field: 'url', limit: URL_MAX });
  }
  if (url.username || url.password) {
    throw new DomainError('BAD_USER_INPUT', 'url must not carry a user name or password: authenticate the delivery by its X-Taskbase-Signature header (the secret) instead.', { field: 'url' });
  }
  return url;
}

/**
 * Who may see a webhook's whole URL (it may carry a credential in its path or
 * query): the token that created it, or anyone when auth is off (no
 * principal). Every other token, read-only ones included, sees its scheme and
 * host only. A webhook that belongs to no token (made while auth was off)
 * shows its whole URL to no token.
 */
export function seesWholeUrl(owner: string | null, principal: string | null | undefined): boolean {
  return !principal || owner === principal;
}

/**
 * Who may delete a webhook: its creator's token, anyone when auth is off,
 * and any write token for one that belongs to no token (or nobody could).
 */
export function mayChangeWebhook(owner: string | null, principal: string | null | undefined): boolean {
  return !principal || owner === null || owner === principal;
}

/** What a token that may not see a webhook's URL is shown: its scheme and host (with the port, if any). */
export function shownWebhookUrl(url: string, whole: boolean): string {
  if (whole) return url;
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}`;
}

/** The shared secret, as given: SECRET_MIN..SECRET_MAX characters. */
export function checkWebhookSecret(secret: string): string {
  if (secret.length < SECRET_MIN || secret.length > SECRET_MAX) {
    throw new DomainError(
      'BAD_USER_INPUT',
      `secret must be ${SECRET_MIN} to ${SECRET_MAX} characters (got ${secret.length}): send a random string, e.g. the output of \`openssl rand -hex 32\`.`,
      { field: 'secret', length: secret.length, min: SECRET_MIN, limit: SECRET_MAX },
    );
  }
  return secret;
}

/**
 * The X-Taskbase-Signature header's value: sha256=<hex HMAC-SHA256 of
 * "<timestamp>.<delivery id>.<body>" keyed by the secret>. The delivery id is
 * signed so that a captured delivery re-sent under a new id (to pass a
 * receiver's "already handled" check) fails verification.
 */
export function webhookSignature(secret: string, timestamp: number, deliveryId: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${deliveryId}.${body}`).digest('hex')}`;
}

/** How failed deliveries are tried again: TASKBASE_WEBHOOK_BACKOFF_MS and TASKBASE_WEBHOOK_MAX_ATTEMPTS. */
export interface WebhookRetry {
  /** The wait after the first failed attempt; each further failure doubles it. */
  backoffMs: number;
  /** Attempts of one delivery before its webhook is marked inactive. */
  maxAttempts: number;
}

/** The longest wait between two attempts, however many failed. */
const BACKOFF_CAP_MS = 3_600_000;

/** The wait before attempt `attempts + 1`, after `attempts` failures: backoffMs, 2×, 4×, … up to an hour. */
export function retryDelayMs(retry: WebhookRetry, attempts: number): number {
  return Math.min(BACKOFF_CAP_MS, retry.backoffMs * 2 ** Math.max(0, attempts - 1));
}

/**
 * Whether a webhook may reach an address without the operator allowing it:
 * only global unicast addresses may. ipaddr.js names the special-purpose
 * ranges (IANA's registries: loopback, private, link-local, carrier-grade
 * NAT, multicast, documentation, benchmarking, discard, reserved, …); any
 * address in one of them is refused. An IPv4-mapped IPv6 address is judged
 * as the IPv4 it maps. The IPv6 forms that carry an IPv4 address to another
 * network (IPv4-compatible ::/96, 6to4 2002::/16, Teredo 2001::/32, NAT64
 * 64:ff9b::/96 and 64:ff9b:1::/48, SIIT) are refused whatever they carry, as
 * is every IPv6 address outside global unicast 2000::/3: a relay or
 * translator could turn them into an internal IPv4 address.
 */
export function isInternalAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return true;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  if (parsed.range() !== 'unicast') return true;
  return parsed.kind() === 'ipv6' && !parsed.match(GLOBAL_UNICAST_V6);
}

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/** A URL's host as the allow-list names it: lower case, IPv6 without brackets. */
export function hostOf(url: URL): string {
  return url.hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
}

/**
 * Refuses a target that resolves to an internal address, unless the host or
 * that address is on the allow-list (TASKBASE_WEBHOOK_ALLOWED_HOSTS). Every
 * address the name resolves to is checked: one internal one is enough to
 * refuse, as the connection could go to any of them.
 */
export function checkTargetAddresses(host: string, addresses: readonly string[], allowed: ReadonlySet<string>): void {
  if (addresses.length === 0) throw new DomainError('BAD_USER_INPUT', `the webhook's host ${host} does not resolve to an address; send a URL whose host resolves.`, { field: 'url', host });
  if (allowed.has(host)) return;
  // The address is not named: a creator could otherwise learn where internal names resolve, and readers see lastError.
  if (addresses.some((address) => isInternalAddress(address) && !allowed.has(address.toLowerCase()))) {
    throw new DomainError(
      'BAD_USER_INPUT',
      `the webhook's host ${host} is not allowed: webhooks may reach public addresses only, not loopback, private, link-local or reserved ones. ` +
        'Send a public URL, or ask the operator to list the host in TASKBASE_WEBHOOK_ALLOWED_HOSTS.',
      { field: 'url', host },
    );
  }
}
