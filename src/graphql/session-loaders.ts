import DataLoader from 'dataloader';
import type { Services } from '../services/index.js';

/** The per-request loaders for sessions; spread into createLoaders, so they are made per request like the others. */
export function createSessionLoaders(services: Services) {
  const reader = services.sessionReader;
  return {
    session: new DataLoader((ids: readonly string[]) => reader.sessionsByIds(ids)),
    /** Each session's helpers, oldest first. */
    sessionChildren: new DataLoader((ids: readonly string[]) => reader.childrenOf(ids)),
    /** Each session's named domains, sorted. */
    sessionDomains: new DataLoader((ids: readonly string[]) => reader.domainsOf(ids)),
    /** For each session's plan task id: that id while it is the current plan, else null. */
    currentPlan: new DataLoader((taskIds: readonly number[]) => reader.currentPlans(taskIds)),
  };
}
