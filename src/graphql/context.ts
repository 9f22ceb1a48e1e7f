import type { Services } from '../services/index.js';
import type { Caller } from '../services/unit-of-work.js';
import { createLoaders, type Loaders } from './loaders.js';

/** What every resolver gets: who calls, the services, and this request's loaders. */
export interface Context {
  caller: Caller;
  services: Services;
  loaders: Loaders;
}

export function createContext(services: Services, sessionHeader: string | string[] | undefined): Context {
  const sessionId = Array.isArray(sessionHeader) ? sessionHeader[0] : sessionHeader;
  return { caller: { sessionId: sessionId?.trim() || null }, services, loaders: createLoaders(services) };
}
