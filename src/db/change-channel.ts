/** The PostgreSQL channel every taskbase process on one database shares. Its notifications carry nothing: they say "read the change log". */
export const CHANGE_CHANNEL = 'taskbase_changes';

/** How a server's listening connection is named in pg_stat_activity, so an operator (or a test) can find it. */
export function listenerName(pid: number = process.pid): string {
  return `taskbase-change-listener-${pid}`;
}
