import type { Services } from '../services/index.js';
import type { Caller } from '../services/kernel/unit-of-work.js';
import { newBudget, type ExecutionBudget } from './execution-budget.js';
import { createLoaders, type Loaders } from './loaders.js';

/** What a bearer token allows: everything, or reading only (see src/auth.ts). */
export type Access = 'write' | 'read';

/** What every resolver gets: who calls, what they may do, the services, this request's loaders and what it may still spend. */
export interface Context {
  caller: Caller;
  access: Access;
  services: Services;
  loaders: Loaders;
  budget: ExecutionBudget;
}

export function createContext(
  services: Services,
  sessionHeader: string | string[] | undefined,
  access: Access = 'write',
  principal: string | null = null,
): Context {
  // Kept as sent, whatever its length: a header naming no session is not "no header". The services check it (Writer.run):
  // a write with one is refused with NO_SESSION and records nothing; a read just finds no session by it.
  const sessionId = (Array.isArray(sessionHeader) ? sessionHeader[0] : sessionHeader)?.trim() || null;
  const budget = newBudget();
  return { caller: { sessionId, principal }, access, services, loaders: createLoaders(services, budget), budget };
}
