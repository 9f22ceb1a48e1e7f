/**
 * Which Host and Origin headers the server answers (a guard against DNS
 * rebinding and against web pages driving a local server). One policy for
 * every surface: HTTP paths, the WebSocket upgrade and MCP's own transport.
 *
 * - Host: localhost, 127.0.0.1, [::1], the bound HOST (unless it is every
 *   interface), and TASKBASE_ALLOWED_HOSTS (comma-separated names, "*" for
 *   any). The port is not compared: a local port is reached only locally.
 * - Origin: absent is allowed (curl, MCP clients and agents send none); the
 *   server's own origin (the page's Host equals the request's allowed Host) is
 *   allowed, and so is every origin in TASKBASE_ALLOWED_ORIGINS
 *   (comma-separated, e.g. https://tasks.example.com, "*" for any). Anything
 *   else, "null" included, is refused.
 */
export interface OriginPolicy {
  /** The host names accepted (lower case, without port or brackets); "*" means any. */
  readonly allowedHosts: readonly string[];
  /** The origins accepted besides the server's own (scheme://host[:port], lower case); "*" means any. */
  readonly allowedOrigins: readonly string[];
  /** Why a request with these headers is refused (a message for the caller), or null when it is answered. */
  refusal(headers: { host?: string; origin?: string }): OriginRefusal | null;
}

interface OriginRefusal {
  /** Which header was refused. */
  header: 'host' | 'origin';
  message: string;
}

const LOCAL_HOSTS = ['localhost', '127.0.0.1', '::1'];
const EVERY_INTERFACE = new Set(['0.0.0.0', '::', '']);

/** "Example.COM:4000" → "example.com"; "[::1]:4000" → "::1"; null when it does not parse. */
export function hostnameOf(host: string | undefined): string | null {
  const value = host?.trim().toLowerCase();
  if (!value) return null;
  const bracketed = /^\[([0-9a-f:.]+)\](?::\d{1,5})?$/.exec(value);
  if (bracketed) return bracketed[1];
  // An unbracketed IPv6 address has several colons and no port.
  if (/^[0-9a-f:.]+$/.test(value) && value.split(':').length > 2) return value;
  const plain = /^([a-z0-9._-]+)(?::\d{1,5})?$/.exec(value);
  if (!plain) return null;
  return plain[1];
}

/** "HTTPS://Example.com:443/" → "https://example.com:443"; null when it is not an http(s) origin. */
function normalizedOrigin(origin: string): string | null {
  try {
    const url = new URL(origin.trim());
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return `${url.protocol}//${url.host}`.toLowerCase();
  } catch {
    return null;
  }
}

/** A header value fit to quote back in a message: only URL characters, at most 100 of them; anything else is not repeated. */
function quoted(value: string | undefined): string {
  const text = (value ?? '').trim();
  return /^[A-Za-z0-9.:[\]/_-]{1,100}$/.test(text) ? `"${text}"` : text ? '(a value that is not a host name)' : '(none)';
}

function list(raw: string | undefined): string[] {
  return (raw ?? '').split(',').map((entry) => entry.trim()).filter(Boolean);
}

/** TASKBASE_ALLOWED_HOSTS and TASKBASE_ALLOWED_ORIGINS, checked: a malformed entry stops the server with one line. */
export function loadOriginPolicy(env: NodeJS.ProcessEnv, boundHost: string): OriginPolicy {
  const hosts = new Set(LOCAL_HOSTS);
  const bound = hostnameOf(boundHost) ?? boundHost.toLowerCase();
  if (!EVERY_INTERFACE.has(bound)) hosts.add(bound);
  for (const entry of list(env.TASKBASE_ALLOWED_HOSTS)) {
    const name = entry === '*' ? '*' : hostnameOf(entry);
    if (!name) throw new Error(`TASKBASE_ALLOWED_HOSTS has an entry "${entry}" that is not a host name: give names such as tasks.example.com or 10.0.0.5, comma-separated, or * for any.`);
    hosts.add(name);
  }
  const origins = new Set<string>();
  for (const entry of list(env.TASKBASE_ALLOWED_ORIGINS)) {
    const origin = entry === '*' ? '*' : normalizedOrigin(entry);
    if (!origin) throw new Error(`TASKBASE_ALLOWED_ORIGINS has an entry "${entry}" that is not an origin: give scheme://host[:port] such as https://tasks.example.com, comma-separated, or * for any.`);
    origins.add(origin);
  }
  return originPolicy([...hosts], [...origins]);
}

function originPolicy(allowedHosts: readonly string[], allowedOrigins: readonly string[]): OriginPolicy {
  const anyHost = allowedHosts.includes('*');
  const anyOrigin = allowedOrigins.includes('*');
  const hostAllowed = (name: string | null) => name !== null && (anyHost || allowedHosts.includes(name));
  return {
    allowedHosts,
    allowedOrigins,
    refusal({ host, origin }) {
      if (!hostAllowed(hostnameOf(host))) {
        return {
          header: 'host',
          message: `This server does not answer to the Host ${quoted(host)} (a guard against DNS rebinding). ` +
            'Use http://127.0.0.1:<port> or http://localhost:<port>, or add the name to TASKBASE_ALLOWED_HOSTS.',
        };
      }
      if (origin === undefined || anyOrigin) return null;
      const normalized = normalizedOrigin(origin);
      // The dashboard's own page: its origin names the host it was loaded from, which is the request's Host.
      if (normalized && normalized.replace(/^https?:\/\//, '') === host?.trim().toLowerCase()) return null;
      if (normalized && allowedOrigins.includes(normalized)) return null;
      return {
        header: 'origin',
        message: `Requests from a web page at ${quoted(origin)} are refused: taskbase answers only its own dashboard and clients that send no Origin. ` +
          'Add the origin to TASKBASE_ALLOWED_ORIGINS to allow it.',
      };
    },
  };
}
