import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/**
 * One row of the change log (table `changes`): a change event as committed,
 * with what routing it needs (entity, its id, kind and domain), so a reader
 * never reads the changed row back to know who should hear it.
 */
@Entity('changes')
export class LoggedChangeEntity {
  /** Monotonic and never reused: the log's order, and what a cursor names. PostgreSQL's BIGINT arrives as a string. */
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number | string;

  @Column({ type: 'varchar', length: 24 })
  at: string;

  @Column({ type: 'varchar', length: 32 })
  action: string;

  /** TASK, NOTE, SESSION or SETTINGS. */
  @Column({ type: 'varchar', length: 16 })
  entity: string;

  /** The task's or note's id, the session's id, or the settings key. */
  @Column({ type: 'varchar', length: 64 })
  entityId: string;

  /** TASK or NOTE for a memory's change; null otherwise. */
  @Column({ type: 'varchar', length: 8, nullable: true })
  kind: string | null;

  @Column({ type: 'varchar', length: 400, nullable: true })
  domain: string | null;

  @Column({ type: 'integer', nullable: true })
  taskId: number | null;

  /** The one item the change was about, when it was about one. */
  @Column({ type: 'integer', nullable: true })
  itemId: number | null;

  /** The session the change was about: the session itself, or the one whose plan changed. */
  @Column({ type: 'varchar', length: 64, nullable: true })
  sessionId: string | null;

  /** The calling agent session (x-session-id), or null for a caller without one. */
  @Column({ type: 'text', nullable: true })
  madeBy: string | null;
}
