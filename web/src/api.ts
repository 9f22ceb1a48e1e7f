import { signal } from './signal';

/** The bearer token, asked once and kept in this browser. */
const TOKEN_KEY = 'taskbase.token';

/**
 * localStorage, where the browser allows it. Blocked storage (site data off,
 * some private modes, a sandboxed frame) throws on access; the token is then
 * kept in this page's memory only and asked again on the next visit.
 */
const tokenStore = {
  read(): string | null {
    try {
      return localStorage.getItem(TOKEN_KEY);
    } catch {
      return null;
    }
  },
  write(value: string | null): void {
    try {
      if (value === null) localStorage.removeItem(TOKEN_KEY);
      else localStorage.setItem(TOKEN_KEY, value);
    } catch {
      // Memory only: the signal below holds it for this page.
    }
  },
};

export const token = signal<string | null>(tokenStore.read());
export const needToken = signal(false);
export const canWrite = signal(true);

/** The person asked to use another token: the sign-in form shows, and can be cancelled while the current token works. */
export const changingToken = signal(false);

export function saveToken(value: string): void {
  tokenStore.write(value);
  token.set(value);
  needToken.set(false);
  changingToken.set(false);
}

/** Sign out: the token leaves this browser, and the page asks for one again. */
export function forgetToken(): void {
  tokenStore.write(null);
  token.set(null);
  changingToken.set(false);
  needToken.set(true);
}

/** A refusal's facts as the server sends them in extensions (docs/api.md "Refusals"): ids, limits, counts, the field it is about. */
export type RefusalFacts = Readonly<Record<string, unknown>>;

/** A refused or failed call: the code and reason to branch on, the facts to word it from, and the server's message to show as it is. */
export class ApiError extends Error {
  constructor(message: string, readonly code: string, readonly reason: string = code, readonly facts: RefusalFacts = {}) {
    super(message);
  }
}

export function authorization(): string | undefined {
  return token.get() ? `Bearer ${token.get()}` : undefined;
}

/** One GraphQL operation over POST /graphql; the only place the dashboard talks to the server over HTTP. */
export async function gql<T = unknown>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const auth = authorization();
  if (auth) headers.authorization = auth;
  let response: Response;
  try {
    response = await fetch('/graphql', { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
  } catch {
    throw new ApiError('The server cannot be reached. Check that taskbase is running, then retry.', 'NETWORK');
  }
  const body = (await response.json().catch(() => ({}))) as { data?: T; errors?: { message: string; extensions?: { code?: string; reason?: string } & RefusalFacts }[] };
  if (response.status === 401) needToken.set(true);
  if (body.errors?.length) {
    const [first] = body.errors;
    const code = first.extensions?.code ?? 'ERROR';
    throw new ApiError(forPeople(first.message), code, first.extensions?.reason ?? code, first.extensions ?? {});
  }
  return body.data as T;
}

/**
 * The server's refusals are written for the person already; GraphQL's own
 * variable checks are written for developers ('Variable "$intervalMinutes"
 * got invalid value 1.5; Int cannot represent…'), so they are said again in
 * words, naming the field.
 */
export function forPeople(message: string): string {
  const variable = /^Variable "\$(\w+)" got invalid value (.*?); (.*)$/s.exec(message);
  if (!variable) return message;
  const field = variable[1].replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  const reason = variable[3];
  if (/Int cannot represent/.test(reason)) return `The ${field} must be a whole number; ${variable[2]} is not one.`;
  if (/Expected value of type "?(\w+)/.test(reason)) return `The ${field} is not one of the values this field takes (${variable[2]}).`;
  return `The ${field} (${variable[2]}) is not accepted: ${reason.replace(/\.$/, '')}.`;
}

/** Whether this token may change anything; read-only tokens see no edit controls. */
export async function checkAccess(): Promise<void> {
  try {
    const data = await gql<{ access: 'WRITE' | 'READ' }>('{ access }');
    canWrite.set(data.access === 'WRITE');
  } catch {
    // 401: the token form shows; anything else: the views say so when they load.
  }
}
