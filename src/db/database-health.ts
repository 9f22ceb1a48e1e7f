import fs from 'node:fs';
import path from 'node:path';
import { DATABASE_DAMAGED, DISK_FULL, isDatabaseDamaged, isDiskFull } from './unavailable.js';

/** What /healthz says about the database beyond "it answers a SELECT". */
export type HealthReport =
  | { status: 'ok' }
  | { status: 'unavailable'; reason: 'disk full' | 'database damaged'; message: string; since: string };

/**
 * How long a PostgreSQL disk-full report stands with no write to confirm it.
 * PostgreSQL's disk is not this process's to look at, so without a write
 * that commits (which clears it at once) the report lapses after this long
 * and /healthz goes back to asking the database; the next failed write
 * raises it again.
 */
const REMOTE_DISK_FULL_STANDS_MS = 30_000;

/**
 * Free space, over what the disk had when a write was refused, that says
 * room has come back (a SQLite file's disk, read with statfs): a page or two
 * would only fill again at the next write.
 */
const ROOM_REGAINED_BYTES = 1 << 20;

/**
 * What the writes have shown about the database: its disk full (since a
 * write was refused for it, until one commits or room comes back), or its
 * file damaged (until the server restarts on a restored file). Reads go on
 * either way; /healthz answers 503 with the reason, and writes are still
 * tried, so the first one after space is freed commits with no restart.
 */
export class DatabaseHealth {
  private diskFull: { since: Date; freeBytes: number | null } | null = null;
  private damaged: Date | null = null;

  /** @param sqliteFile the SQLite file whose disk can be looked at, or null (PostgreSQL, in memory). */
  constructor(private readonly sqliteFile: string | null, private readonly now: () => Date = () => new Date()) {}

  /** A write committed: whatever filled the disk is gone. */
  committed(): void {
    this.diskFull = null;
  }

  /** A write failed with `error`: remember what it says about the database. */
  failed(error: unknown): void {
    if (isDiskFull(error)) this.diskFull ??= { since: this.now(), freeBytes: this.freeBytes() };
    if (isDatabaseDamaged(error)) this.damaged ??= this.now();
  }

  report(): HealthReport {
    if (this.damaged) return { status: 'unavailable', reason: 'database damaged', message: DATABASE_DAMAGED, since: this.damaged.toISOString() };
    if (this.diskFull && this.stillFull(this.diskFull)) {
      return { status: 'unavailable', reason: 'disk full', message: DISK_FULL, since: this.diskFull.since.toISOString() };
    }
    this.diskFull = null;
    return { status: 'ok' };
  }

  private stillFull(full: { since: Date; freeBytes: number | null }): boolean {
    const free = this.freeBytes();
    if (free === null || full.freeBytes === null) return this.now().getTime() - full.since.getTime() < REMOTE_DISK_FULL_STANDS_MS;
    return free < full.freeBytes + ROOM_REGAINED_BYTES;
  }

  /** Bytes an unprivileged writer may still use on the SQLite file's disk, or null when there is no such disk to look at. */
  private freeBytes(): number | null {
    if (!this.sqliteFile) return null;
    try {
      const { bavail, bsize } = fs.statfsSync(path.dirname(this.sqliteFile));
      return bavail * bsize;
    } catch {
      return null;
    }
  }
}
