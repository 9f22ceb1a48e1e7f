/**
 * One pass at a time, and none missed: a call while a pass is under way asks
 * for one more pass after it (however many calls came meanwhile), never a
 * second pass beside it. What tails the change log and what fills and sends
 * webhooks both work this way: a wake-up is "look again", not a job.
 */
export class CoalescedPasses {
  private running: Promise<void> | null = null;
  /** A pass asked for during the one under way: it runs after it, and `done` resolves once it has ended. */
  private following: { done: Promise<void>; resolve: () => void } | null = null;

  /** `pass` must not reject (it reports its own failures); `mayRun` is asked before every pass. */
  constructor(
    private readonly pass: () => Promise<void>,
    private readonly mayRun: () => boolean,
  ) {}

  /**
   * Runs a pass now, or once more after the one under way. Resolves once a
   * pass that began after this call has ended (at once when none may run).
   */
  request(): Promise<void> {
    if (!this.mayRun()) return Promise.resolve();
    if (this.running) {
      if (!this.following) {
        let resolve!: () => void;
        const done = new Promise<void>((settle) => { resolve = settle; });
        this.following = { done, resolve };
      }
      return this.following.done;
    }
    const running = this.pass().finally(() => {
      this.running = null;
      const following = this.following;
      this.following = null;
      if (following) void this.request().then(following.resolve);
    });
    this.running = running;
    return running;
  }

  /** Resolves once the pass under way, if any, has ended. */
  async settled(): Promise<void> {
    await this.running;
  }
}
