import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { TaskState } from '../../domain/states.js';

/**
 * One row per memory: a note or a task (a session's plan is a task with no
 * domain). One table keeps `memories(domain)` and `search` a single keyset
 * query over both kinds. Task state and archive status are not columns: they
 * are derived from the items (a note's `archived` is its own, set by
 * archiveMemory).
 */
@Entity('memories')
@Index('idx_memories_domain_id', ['domain', 'id'])
@Index('idx_memories_open_tasks', ['taskState', 'domain', 'updatedAt', 'id'])
@Index('idx_memories_domain_updated', ['domain', 'updatedAt', 'id'])
@Index('idx_memories_domain_counts', ['domain', 'kind', 'taskState'])
@Index('idx_memories_ready_tasks', ['domain', 'id'], { where: `"kind" = 'TASK' AND "taskState" = 'OPEN' AND "sessionId" IS NULL` })
export class MemoryEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 8 })
  kind: 'NOTE' | 'TASK';

  @Column({ type: 'varchar', length: 400 })
  title: string;

  @Column({ type: 'varchar', length: 400, nullable: true })
  domain: string | null;

  /** A note's body; empty for tasks. */
  @Column({ type: 'text', default: '' })
  body: string;

  /** A task's goal, [[#id]] tokens as written; empty for notes. */
  @Column({ type: 'text', default: '' })
  goal: string;

  /** Notes only: archived by archiveMemory. */
  @Column({ type: 'boolean', default: false })
  archived: boolean;

  /** Bumped by a compare-and-set on every recorded change. */
  @Column({ type: 'integer', default: 1 })
  version: number;

  /** Set on a session's plan. */
  @Column({ type: 'varchar', length: 64, nullable: true })
  sessionId: string | null;

  /** Tasks only: live items by state (derived data, checked against a recount in tests). */
  @Column({ type: 'integer', default: 0 })
  pendingItems: number;

  @Column({ type: 'integer', default: 0 })
  inProgressItems: number;

  @Column({ type: 'integer', default: 0 })
  doneItems: number;

  @Column({ type: 'integer', default: 0 })
  droppedItems: number;

  @Column({ type: 'integer', default: 0 })
  blockedItems: number;

  @Column({ type: 'integer', default: 0 })
  failedItems: number;

  /** Tasks only: taskStateOf(the counts above), stored so lists filter and index on it; null on notes. */
  @Column({ type: 'varchar', length: 16, nullable: true })
  taskState: TaskState | null;

  /** ISO-8601 UTC; strings sort the same on SQLite and PostgreSQL. */
  @Column({ type: 'varchar', length: 24 })
  createdAt: string;

  @Column({ type: 'varchar', length: 24 })
  updatedAt: string;
}
