import dns from 'node:dns';
import net from 'node:net';
import { checkTargetAddresses, hostOf } from '../../domain/webhooks.js';

/**
 * Where a webhook's host may be reached: every address it resolves to,
 * checked against the internal ranges (domain/webhooks.ts) unless allowed.
 * Used when a webhook is created and, as the socket's own lookup, on every
 * attempt, so the address checked is the address connected to (a name that
 * resolves elsewhere later is checked again, not trusted).
 */
export async function checkedAddresses(url: URL, allowed: ReadonlySet<string>): Promise<{ address: string; family: number }[]> {
  const host = hostOf(url);
  const found = net.isIP(host) !== 0
    ? [{ address: host, family: net.isIP(host) }]
    : await dns.promises.lookup(host, { all: true, verbatim: true }).catch(() => []);
  checkTargetAddresses(host, found.map((entry) => entry.address), allowed);
  return found;
}

/** A `lookup` for http.request that answers only checked addresses (an internal one fails the attempt). */
export function checkedLookup(url: URL, allowed: ReadonlySet<string>): net.LookupFunction {
  return ((_hostname: string, options: dns.LookupOptions, callback: (error: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void) => {
    checkedAddresses(url, allowed).then(
      (found) => {
        if (options?.all) callback(null, found);
        else callback(null, found[0].address, found[0].family);
      },
      (error: Error) => callback(Object.assign(error, { code: 'ETARGETREFUSED' }), ''),
    );
  }) as net.LookupFunction;
}
