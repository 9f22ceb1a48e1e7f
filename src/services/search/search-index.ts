import type { EntityManager } from 'typeorm';
import type { MemoryKind } from '../../domain/memory-kind.js';

/** What one search hit needs to be paged: the memory and its rank (lower is better). */
interface SearchHit {
  memoryId: number;
  rank: number;
}

export interface SearchOptions {
  /** Runs of letters and digits (domain/search-words.ts); at least one. */
  words: string[];
  domain: string | null;
  kind: MemoryKind | null;
  /** Rows after this (rank, id) key. */
  after: readonly [number, number] | null;
  limit: number;
}

/**
 * Full-text search over memories: notes (title, body) and tasks (title, goal,
 * item labels). One implementation per database (FTS5 on SQLite, tsvector on
 * PostgreSQL), chosen when the services are built.
 *
 * Hits come best first: by rank ascending, then newest (id descending). A
 * rank depends on the memory and the query only, never on the rest of the
 * collection, so a page's cursor (rank, id) stays valid while other memories
 * are written and paging neither repeats nor skips a hit.
 */
export interface SearchIndex {
  /** Rewrites the document of one memory, inside the caller's transaction. */
  index(manager: EntityManager, memory: { id: number; title: string; text: string }): Promise<void>;
  search(reader: EntityManager, options: SearchOptions): Promise<{ hits: SearchHit[]; total: number }>;
}
