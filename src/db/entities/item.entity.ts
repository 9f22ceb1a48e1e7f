import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { ItemState } from '../../domain/states.js';

/**
 * A checklist item of a task or plan. Ids come from an AUTOINCREMENT key and
 * delete only marks a row, so an id is never reused and [[#id]] stays
 * citable; the one exception is a plan's old deleted steps that nothing
 * points at, purged beyond a cap (services/sessions/plan-purge.ts).
 */
@Entity('items')
@Index('idx_items_task_position', ['taskId', 'position'])
export class ItemEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'integer' })
  taskId: number;

  @Column({ type: 'varchar', length: 1000 })
  text: string;

  @Column({ type: 'varchar', length: 16 })
  state: ItemState;

  /** Order among all of the task's items, deleted ones included (they keep their place). */
  @Column({ type: 'integer' })
  position: number;

  @Column({ type: 'boolean', default: false })
  deleted: boolean;

  /** Added after the task or plan was first written. */
  @Column({ type: 'boolean', default: false })
  added: boolean;

  /** The latest validation or reason given with a state change. */
  @Column({ type: 'text', nullable: true })
  note: string | null;

  @Column({ type: 'varchar', length: 24 })
  createdAt: string;

  @Column({ type: 'varchar', length: 24 })
  updatedAt: string;
}
