import { Mutex } from 'async-mutex';

/**
 * The process-wide write lock SQLite needs: its single connection cannot
 * hold two transactions at once, so units of work take turns. Not
 * re-entrant: a unit of work never starts another (one transaction per
 * mutation), and the whole suite ran with a detector on that path without
 * reaching it. It used to track re-entry with AsyncLocalStorage, which on
 * Node 20 puts a hook on every promise in the process: 8 % of the dashboard
 * read's CPU profile (promiseInitHook, _propagate, lookupPublicResource).
 */
export class WriteLock {
  private readonly mutex = new Mutex();

  run<T>(work: () => Promise<T>): Promise<T> {
    return this.mutex.runExclusive(work);
  }
}
