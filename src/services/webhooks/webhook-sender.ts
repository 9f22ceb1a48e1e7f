import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { hostOf, webhookSignature } from '../../domain/webhooks.js';
import { checkedAddresses, checkedLookup } from './webhook-target.js';

/** The most of an answer's body read; the rest is not waited for (the status is all a delivery needs). */
export const RESPONSE_CAP_BYTES = 64 * 1024;

interface Attempt {
  url: string;
  secret: string;
  deliveryId: string;
  body: string;
}

/** What one attempt got: the HTTP status, or null when there was none (refused target, no connection, timeout). */
export interface AttemptResult {
  status: number | null;
  /** Why there was no status, for the log; never the receiver's body. */
  error?: string;
}

export type Send = (attempt: Attempt) => Promise<AttemptResult>;

/**
 * POSTs one delivery, signed: X-Taskbase-Delivery (the same on every
 * attempt), X-Taskbase-Timestamp (Unix seconds, now) and
 * X-Taskbase-Signature (HMAC-SHA256 of "<timestamp>.<delivery id>.<body>"). A redirect is
 * an answer like any other (node's http does not follow one), so a 3xx is a
 * failed attempt; the whole attempt is bounded by `timeoutMs`, and at most
 * RESPONSE_CAP_BYTES of the answer are read. Never throws.
 */
export function httpSender(options: { allowedHosts: ReadonlySet<string>; timeoutMs: number; now?: () => Date }): Send {
  const now = options.now ?? (() => new Date());
  return async (attempt) => {
    const url = new URL(attempt.url);
    // An address literal is never looked up, so it is checked here; a name is checked by the socket's lookup.
    if (net.isIP(hostOf(url)) !== 0) {
      try {
        await checkedAddresses(url, options.allowedHosts);
      } catch (error) {
        return { status: null, error: (error as Error).message };
      }
    }
    const timestamp = Math.floor(now().getTime() / 1000);
    const body = Buffer.from(attempt.body);
    const client = url.protocol === 'https:' ? https : http;
    return new Promise<AttemptResult>((resolve) => {
      let settled = false;
      const done = (result: AttemptResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        request.destroy();
        resolve(result);
      };
      const request = client.request(url, {
        method: 'POST',
        agent: false,
        lookup: checkedLookup(url, options.allowedHosts),
        headers: {
          'content-type': 'application/json',
          'content-length': body.length,
          'user-agent': 'taskbase-webhooks',
          'x-taskbase-delivery': attempt.deliveryId,
          'x-taskbase-timestamp': String(timestamp),
          'x-taskbase-signature': webhookSignature(attempt.secret, timestamp, attempt.deliveryId, attempt.body),
        },
      }, (response) => {
        const status = response.statusCode ?? null;
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > RESPONSE_CAP_BYTES) done({ status });
        });
        response.on('end', () => done({ status }));
        response.on('error', () => done({ status }));
      });
      const timer = setTimeout(() => done({ status: null, error: `no answer within ${options.timeoutMs} ms` }), options.timeoutMs);
      request.on('error', (error: NodeJS.ErrnoException) => done({ status: null, error: error.code === 'ETARGETREFUSED' ? error.message : `could not deliver (${error.code ?? 'error'})` }));
      request.end(body);
    });
  };
}
