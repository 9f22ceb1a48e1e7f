import { Initial1764460000000 } from './1764460000000-initial.js';

/** Every migration, oldest first. */
export const MIGRATIONS = [Initial1764460000000];
