/** What a DATABASE_URL names, read without loading the ORM (the CLI's fast path needs only this). */
export type DatabaseKind = 'sqlite' | 'postgres';

export function databaseKind(url: string): DatabaseKind {
  if (url.startsWith('sqlite:')) return 'sqlite';
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) return 'postgres';
  throw new Error(`DATABASE_URL must be sqlite:<path> or postgres://user@host:port/db; got "${url}"`);
}

export function sqlitePath(url: string): string {
  return url.slice('sqlite:'.length);
}
