/**
 * Webhooks: what a target may be, how a delivery is signed, and when a
 * failed one is tried again. Plain functions; the sender and the dispatcher
 * (services/webhooks) apply them.
 */
import { createHmac } from 'node:crypto';
import net from 'node:net';
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
    throw new DomainError('BAD_USER_INPUT', `url must be an http:// or https:// URL of at most ${URL_MAX} characters, e.g. "https://hooks.example.com/taskbase"; got "${text.slice(0, 100)}".`);
  }
  if (url.username || url.password) {
    throw new DomainError('BAD_USER_INPUT', 'url must not carry a user name or password: authenticate the delivery by its X-Taskbase-Signature header (the secret) instead.');
  }
  return url;
}

/** The shared secret, as given: SECRET_MIN..SECRET_MAX characters. */
export function checkWebhookSecret(secret: string): string {
  if (secret.length < SECRET_MIN || secret.length > SECRET_MAX) {
    throw new DomainError(
      'BAD_USER_INPUT',
      `secret must be ${SECRET_MIN} to ${SECRET_MAX} characters (got ${secret.length}): send a random string, e.g. the output of \`openssl rand -hex 32\`.`,
    );
  }
  return secret;
}

/** The X-Taskbase-Signature header's value: sha256=<hex HMAC-SHA256 of "<timestamp>.<body>" keyed by the secret>. */
export function webhookSignature(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
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
 * Addresses a webhook may not reach unless allowed by name: this machine
 * (loopback, unspecified), private networks, link-local (cloud metadata
 * services live there), carrier-grade NAT, multicast and reserved ranges, in
 * IPv4 and IPv6 (IPv4-mapped IPv6 addresses are checked as the IPv4 they map).
 */
const INTERNAL = new net.BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) INTERNAL.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b::', 96], ['2001:db8::', 32],
] as const) INTERNAL.addSubnet(network, prefix, 'ipv6');

/** True for an address a webhook may not reach by default (see INTERNAL). */
export function isInternalAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return INTERNAL.check(mapped[1], 'ipv4');
  const family = net.isIP(address);
  if (family === 0) return true;
  return INTERNAL.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

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
  if (addresses.length === 0) throw new DomainError('BAD_USER_INPUT', `the webhook's host ${host} does not resolve to an address; send a URL whose host resolves.`);
  if (allowed.has(host)) return;
  const internal = addresses.find((address) => isInternalAddress(address) && !allowed.has(address.toLowerCase()));
  if (internal) {
    throw new DomainError(
      'BAD_USER_INPUT',
      `the webhook's host ${host} resolves to ${internal}, a loopback, private or link-local address, which webhooks may not reach. ` +
        'Send a public URL, or ask the operator to list the host in TASKBASE_WEBHOOK_ALLOWED_HOSTS.',
    );
  }
}
