import { Mutex } from 'async-mutex';

/**
 * The process-wide write lock SQLite needs: its single connection cannot
 * hold two transactions at once, so units of work take turns. Nested use
 * within one unit of work (DESIGN.md) takes no second turn: whatever a unit
 * of work calls writes through its transaction's manager, inside the turn it
 * already holds. So the lock itself is not re-entrant, and need not be: one
 * mutation is one unit of work, which never starts another (that would wait
 * for itself). Tracking re-entry per call (AsyncLocalStorage) would put a
 * hook on every promise in the process.
 */
export class WriteLock {
  private readonly mutex = new Mutex();

  /** Runs `work` in its turn; `first` puts it ahead of every turn still waiting (the WAL's restart, a moment long). */
  run<T>(work: () => Promise<T>, first = false): Promise<T> {
    return this.mutex.runExclusive(work, first ? 1 : 0);
  }
}
