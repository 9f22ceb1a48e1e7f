import DataLoader from 'dataloader';
import type { Services } from '../services/index.js';

/** The per-request loaders for sessions; spread into loaders.ts's LOADERS, so they are made per request like the others. */
export const SESSION_LOADERS = {
  session: (services: Services) => new DataLoader((ids: readonly string[]) => services.sessionReader.sessionsByIds(ids)),
  /** Each session's helpers, oldest first. */
  sessionChildren: (services: Services) => new DataLoader((ids: readonly string[]) => services.sessionReader.childrenOf(ids)),
  /** Each session's named domains, sorted. */
  sessionDomains: (services: Services) => new DataLoader((ids: readonly string[]) => services.sessionReader.domainsOf(ids)),
  /** For each session's plan task id: that id while it is the current plan, else null. */
  currentPlan: (services: Services) => new DataLoader((taskIds: readonly number[]) => services.sessionReader.currentPlans(taskIds)),
};
