import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { ListDelta } from '../../domain/list-delta.js';
import type { ItemChange, Snapshot } from '../../domain/list-diff.js';

/**
 * One recorded change of a task: what changed, and the list after it, whole
 * at a checkpoint (chainLength 0) or else as a delta from the event before
 * (domain/list-delta.ts). Readers rebuild the list from the nearest
 * checkpoint (services/tasks/task-reader.ts history).
 */
@Entity('task_events')
@Index('idx_task_events_task', ['taskId', 'id'])
export class TaskEventEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'integer' })
  taskId: number;

  @Column({ type: 'varchar', length: 24 })
  at: string;

  @Column({ type: 'varchar', length: 32 })
  action: string;

  @Column({ type: 'varchar', length: 64, nullable: true })
  sessionId: string | null;

  /** The list after the change: whole when chainLength is 0, else the delta from the previous event's list. */
  @Column({ type: 'simple-json' })
  items: Snapshot[] | ListDelta;

  /** Deltas since the last checkpoint, this row's included: 0 when this row holds the whole list. */
  @Column({ type: 'integer', default: 0 })
  chainLength: number;

  /** What those deltas weigh (list-delta.ts continueChain): the next row is a checkpoint once they outweigh the list. */
  @Column({ type: 'integer', default: 0 })
  chainBytes: number;

  @Column({ type: 'simple-json' })
  changes: ItemChange[];
}
