import { Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import type { Brief } from '../../domain/briefs.js';

/** A note that belongs to its task: a brief on items, or a note on the whole task. Never a memory. */
@Entity('task_notes')
@Index('idx_task_notes_task', ['taskId', 'id'])
export class TaskNoteEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'integer' })
  taskId: number;

  @Column({ type: 'varchar', length: 400 })
  title: string;

  @Column({ type: 'text', nullable: true })
  body: string | null;

  @Column({ type: 'simple-json', nullable: true })
  brief: Brief | null;

  @Column({ type: 'varchar', length: 24 })
  createdAt: string;

  @Column({ type: 'varchar', length: 24 })
  updatedAt: string;
}

/** Which items a brief is on. */
@Entity('task_note_items')
@Index('idx_task_note_items_item', ['itemId'])
export class TaskNoteItemEntity {
  @PrimaryColumn({ type: 'integer' })
  noteId: number;

  @PrimaryColumn({ type: 'integer' })
  itemId: number;
}
