import { AsyncLocalStorage } from 'node:async_hooks';
import { Mutex } from 'async-mutex';

/**
 * The process-wide write lock SQLite needs: its single connection cannot
 * hold two transactions at once, so units of work take turns. Re-entrant
 * within one unit of work (a service that calls another while writing runs
 * inside the lock it already holds), tracked through AsyncLocalStorage.
 */
export class WriteLock {
  private readonly mutex = new Mutex();
  private readonly holder = new AsyncLocalStorage<true>();

  get held(): boolean {
    return this.holder.getStore() === true;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.held) return work();
    return this.mutex.runExclusive(() => this.holder.run(true, work));
  }
}
