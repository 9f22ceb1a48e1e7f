import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** A comment on a task, or on one of its items. */
@Entity('comments')
@Index('idx_comments_task', ['taskId', 'id'])
@Index('idx_comments_item', ['itemId', 'id'])
export class CommentEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'integer' })
  taskId: number;

  @Column({ type: 'integer', nullable: true })
  itemId: number | null;

  @Column({ type: 'text' })
  body: string;

  @Column({ type: 'varchar', length: 24 })
  createdAt: string;
}
