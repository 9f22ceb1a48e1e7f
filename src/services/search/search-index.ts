import type { EntityManager } from 'typeorm';
import type { MemoryKind } from '../memory-kind.js';

/** What one search hit needs to be paged: the memory and its rank (lower is better). */
export interface SearchHit {
  memoryId: number;
  rank: number;
}

export interface SearchOptions {
  /** Words as the caller typed them; any string is safe. */
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
 */
export interface SearchIndex {
  /** Rewrites the document of one memory, inside the caller's transaction. */
  index(manager: EntityManager, memory: { id: number; title: string; text: string }): Promise<void>;
  search(reader: EntityManager, options: SearchOptions): Promise<{ hits: SearchHit[]; total: number }>;
}
