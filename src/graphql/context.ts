import type { Services } from '../services/index.js';
import type { Caller } from '../services/unit-of-work.js';
import { createLoaders, type Loaders } from './loaders.js';

/** What a bearer token allows: everything, or reading only (see src/auth.ts). */
export type Access = 'write' | 'read';

/** What every resolver gets: who calls, what they may do, the services, and this request's loaders. */
export interface Context {
  caller: Caller;
  access: Access;
  services: Services;
  loaders: Loaders;
}

/** Session ids are UUIDs; a longer x-session-id cannot name a session, so it names none. */
const SESSION_ID_MAX = 64;

export function createContext(services: Services, sessionHeader: string | string[] | undefined, access: Access = 'write'): Context {
  const header = (Array.isArray(sessionHeader) ? sessionHeader[0] : sessionHeader)?.trim();
  const sessionId = header && header.length <= SESSION_ID_MAX ? header : null;
  return { caller: { sessionId }, access, services, loaders: createLoaders(services) };
}
