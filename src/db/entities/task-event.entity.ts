import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { ItemChange, Snapshot } from '../../domain/list-diff.js';

/** One recorded change of a task: the list after it and what changed. */
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

  @Column({ type: 'simple-json' })
  items: Snapshot[];

  @Column({ type: 'simple-json' })
  changes: ItemChange[];
}
