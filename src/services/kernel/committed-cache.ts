import type { EntityManager } from 'typeorm';
import { selectRows } from './statements.js';

/**
 * What the database has committed, as a text: two reads that answer the same
 * text see the same rows. On SQLite, `PRAGMA data_version` of the read
 * connection, which moves whenever any other connection commits (this
 * process's writer, another server, the CLI); the read connection itself
 * never writes. On PostgreSQL, the statement's snapshot (`xmin:xmax:xip`):
 * it moves when a transaction commits or ends, and while a transaction in
 * progress stays in progress its rows stay invisible. One statement that
 * reads no table.
 */
export async function committedVersion(manager: EntityManager): Promise<string> {
  const postgres = manager.connection.driver.options.type === 'postgres';
  const rows = await selectRows(manager, postgres ? 'SELECT CAST(pg_current_snapshot() AS text)' : 'PRAGMA data_version', []);
  return String(rows[0][0]);
}

/**
 * Answers derived from committed rows, kept until anything commits: each use
 * reads the committed version first (one statement) and answers what was
 * derived at that version, or derives it again. For reads whose derivation
 * costs far more than that statement and whose rows change far less often
 * than they are read (domains() sums every domain's kept counts into a tree).
 * A value is kept only under the version read before its rows were read, so
 * a commit between the two only makes the next use derive it again.
 */
export class CommittedCache<T> {
  private version: string | null = null;
  private readonly kept = new Map<string, T>();

  /** `limit`: distinct keys kept at one version; past it the oldest goes. */
  constructor(private readonly limit: number) {}

  async get(manager: EntityManager, key: string, derive: () => Promise<T>): Promise<T> {
    const version = await committedVersion(manager);
    if (version !== this.version) {
      this.version = version;
      this.kept.clear();
    }
    const kept = this.kept.get(key);
    if (kept !== undefined) return kept;
    const value = await derive();
    if (this.version === version) {
      if (this.kept.size >= this.limit) this.kept.delete(this.kept.keys().next().value!);
      this.kept.set(key, value);
    }
    return value;
  }
}
