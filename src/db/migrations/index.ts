import { Initial1764460000000 } from './1764460000000-initial.js';
import { SessionOwner1764470000000 } from './1764470000000-session-owner.js';
import { TaskCounts1764490000000 } from './1764490000000-task-counts.js';
import { DomainScopeIndexes1764500000000 } from './1764500000000-domain-scope-indexes.js';
import { ChangeLog1764510000000 } from './1764510000000-change-log.js';
import { ClaimsAndDependencies1764520000000 } from './1764520000000-claims-and-dependencies.js';
import { Webhooks1764530000000 } from './1764530000000-webhooks.js';
import { SessionKeys1764540000000 } from './1764540000000-session-keys.js';
import { WebhookLastError1764550000000 } from './1764550000000-webhook-last-error.js';
import { SessionNames1764560000000 } from './1764560000000-session-names.js';
import { DomainCounts1764570000000 } from './1764570000000-domain-counts.js';
import { SearchIndex1764575000000 } from './1764575000000-search-index.js';
import { SessionPresetsAndNameWords1764580000000 } from './1764580000000-session-presets-and-name-words.js';
import { SessionOrderIndexes1764586000000 } from './1764586000000-session-order-indexes.js';
import { ReadyTaskIndex1764590000000 } from './1764590000000-ready-task-index.js';
import { WebhookCursor1765200000000 } from './1765200000000-webhook-cursor.js';
import { ClaimFencingAndDependencyCaps1765300000000 } from './1765300000000-claim-fencing-and-dependency-caps.js';
import { HistoryDeltas1765400000000 } from './1765400000000-history-deltas.js';
import { StuckItems1765600000000 } from './1765600000000-stuck-items.js';
import { SteeringSeen1765800000000 } from './1765800000000-steering-seen.js';
import { ChangeQueue1766000000000 } from './1766000000000-change-queue.js';
import { DomainCountShards1766000001000 } from './1766000001000-domain-count-shards.js';
import { ReadyItems1766100000000 } from './1766100000000-ready-items.js';
import { ClaimExpiries1766300000000 } from './1766300000000-claim-expiries.js';
import { ActivityIndexes1766400000000 } from './1766400000000-activity-indexes.js';
import { MemoriesByUpdate1766500000000 } from './1766500000000-memories-by-update.js';
import { WaitsWithoutABrief1766700000000 } from './1766700000000-waits-without-a-brief.js';

/** Every migration, oldest first. */
export const MIGRATIONS = [
  Initial1764460000000,
  SessionOwner1764470000000,
  TaskCounts1764490000000,
  DomainScopeIndexes1764500000000,
  ChangeLog1764510000000,
  ClaimsAndDependencies1764520000000,
  Webhooks1764530000000,
  SessionKeys1764540000000,
  WebhookLastError1764550000000,
  SessionNames1764560000000,
  DomainCounts1764570000000,
  SearchIndex1764575000000,
  SessionPresetsAndNameWords1764580000000,
  SessionOrderIndexes1764586000000,
  ReadyTaskIndex1764590000000,
  WebhookCursor1765200000000,
  ClaimFencingAndDependencyCaps1765300000000,
  HistoryDeltas1765400000000,
  StuckItems1765600000000,
  SteeringSeen1765800000000,
  ChangeQueue1766000000000,
  DomainCountShards1766000001000,
  ReadyItems1766100000000,
  ClaimExpiries1766300000000,
  ActivityIndexes1766400000000,
  MemoriesByUpdate1766500000000,
  WaitsWithoutABrief1766700000000,
];
