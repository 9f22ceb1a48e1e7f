import net from 'node:net';
import type { WebhookRetry } from '../domain/webhooks.js';
import { wholeNumberSetting } from '../domain/whole-number-setting.js';

/**
 * How webhooks are delivered (TASKBASE_WEBHOOK_*): which internal hosts they
 * may reach anyway, how failures are retried, and how long one attempt may
 * take.
 */
export interface WebhookSettings extends WebhookRetry {
  /** Host names and addresses (lower case, IPv6 without brackets) a webhook may reach although they are loopback, private or link-local. */
  allowedHosts: ReadonlySet<string>;
  /** One attempt (connect, send, the answer's headers and body) is abandoned after this and counts as failed. */
  timeoutMs: number;
}

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

export function loadWebhookSettings(env: NodeJS.ProcessEnv): WebhookSettings {
  return {
    allowedHosts: allowedHosts(env.TASKBASE_WEBHOOK_ALLOWED_HOSTS),
    backoffMs: wholeNumberSetting('TASKBASE_WEBHOOK_BACKOFF_MS', env.TASKBASE_WEBHOOK_BACKOFF_MS, 1_000, { min: 1, max: 3_600_000, accepts: 'milliseconds from 1 to 3600000 (the wait after a first failed delivery; it doubles after each further one)' }),
    maxAttempts: wholeNumberSetting('TASKBASE_WEBHOOK_MAX_ATTEMPTS', env.TASKBASE_WEBHOOK_MAX_ATTEMPTS, 8, { min: 1, max: 100, accepts: 'a whole number from 1 to 100 (attempts of one delivery before the webhook is marked inactive)' }),
    timeoutMs: wholeNumberSetting('TASKBASE_WEBHOOK_TIMEOUT_MS', env.TASKBASE_WEBHOOK_TIMEOUT_MS, 10_000, { min: 100, max: 600_000, accepts: 'milliseconds from 100 to 600000 (how long one delivery attempt may take)' }),
  };
}


/** Comma-separated host names and IP addresses; anything else (a URL, a port, a wildcard) is refused. */
function allowedHosts(raw: string | undefined): ReadonlySet<string> {
  const hosts = new Set<string>();
  for (const entry of (raw ?? '').split(',').map((part) => part.trim().toLowerCase()).filter(Boolean)) {
    const host = entry.replace(/^\[(.*)\]$/, '$1');
    if (net.isIP(host) === 0 && !HOST_NAME.test(host)) {
      throw new Error(`TASKBASE_WEBHOOK_ALLOWED_HOSTS must be comma-separated host names or IP addresses (no scheme, port or wildcard), e.g. 127.0.0.1,hooks.internal; got "${entry}".`);
    }
    hosts.add(host);
  }
  return hosts;
}
