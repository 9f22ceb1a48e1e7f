/**
 * One pass at a time, and none missed: a call while a pass is under way asks
 * for one more pass after it (however many calls came meanwhile), never a
 * second pass beside it. What tails the change log and what fills and sends
 * webhooks both work this way: a wake-up is "look again", not a job.
 */
export class CoalescedPasses {
  private running: Promise<void> | null = null;
  private again = false;

  /** `pass` must not reject (it reports its own failures); `mayRun` is asked before every pass. */
  constructor(
    private readonly pass: () => Promise<void>,
    private readonly mayRun: () => boolean,
  ) {}

  /** Runs a pass now, or once more after the one under way. */
  request(): void {
    if (!this.mayRun()) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.pass().finally(() => {
      this.running = null;
      if (this.again) {
        this.again = false;
        this.request();
      }
    });
  }

  /** Resolves once the pass under way, if any, has ended. */
  async settled(): Promise<void> {
    await this.running;
  }
}
