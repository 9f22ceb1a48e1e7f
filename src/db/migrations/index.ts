import { Initial1764460000000 } from './1764460000000-initial.js';
import { SessionOwner1764470000000 } from './1764470000000-session-owner.js';

/** Every migration, oldest first. */
export const MIGRATIONS = [Initial1764460000000, SessionOwner1764470000000];
