import DataLoader from 'dataloader';
import type { Services } from '../services/index.js';
import type { LoggedChange } from '../services/kernel/changes/logged-change.js';

/** The per-request loaders for sessions; spread into loaders.ts's LOADERS, so they are made per request like the others. */
export const SESSION_LOADERS = {
  session: (services: Services) => new DataLoader((ids: readonly string[]) => services.sessionReader.sessionsByIds(ids)),
  /** Each session's helpers, oldest first. */
  sessionChildren: (services: Services) => new DataLoader((ids: readonly string[]) => services.sessionReader.childrenOf(ids)),
  /** Each session's named domains, sorted. */
  sessionDomains: (services: Services) => new DataLoader((ids: readonly string[]) => services.sessionReader.domainsOf(ids)),
  /** Each session's latest steering by a person, and whether its agent was told (Session.steering). */
  sessionSteering: (services: Services) => new DataLoader((ids: readonly string[]) => services.steeringReader.latestForSessions(ids)),
  /** Each item's latest change by a person while it was an agent's, and whether that agent was told (Item.steering). */
  itemSteering: (services: Services) => new DataLoader((ids: readonly number[]) => services.steeringReader.latestForItems(ids)),
  /** Each logged change's item changes, from → to, as its history row recorded them (LoggedChange.itemChanges). */
  loggedItemChanges: (services: Services) => new DataLoader((changes: readonly LoggedChange[]) => services.activity.itemChanges(changes), { cacheKeyFn: (change) => change.id }),
  /** For each session's plan task id: that id while it is the current plan, else null. */
  currentPlan: (services: Services) => new DataLoader((taskIds: readonly number[]) => services.sessionReader.currentPlans(taskIds)),
};
