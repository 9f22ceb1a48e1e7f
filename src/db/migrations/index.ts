import { Initial1764460000000 } from './1764460000000-initial.js';
import { TaskCounts1764470000000 } from './1764470000000-task-counts.js';
import { DomainScopeIndexes1764480000000 } from './1764480000000-domain-scope-indexes.js';

/** Every migration, oldest first. */
export const MIGRATIONS = [Initial1764460000000, TaskCounts1764470000000, DomainScopeIndexes1764480000000];
