import { Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

/**
 * A lease on one item by one session. At most one row per item: a new claim
 * takes over the row once it has expired. A row whose expiresAt is not after
 * the database's clock is no claim, whatever it says (nothing sweeps rows),
 * so every read compares with the database's time, never a process's.
 */
@Entity('claims')
@Index('idx_claims_session', ['sessionId', 'expiresAt'])
@Index('idx_claims_owner', ['owner', 'expiresAt'])
export class ClaimEntity {
  @PrimaryColumn({ type: 'integer' })
  itemId: number;

  /** The item's task, so the claims of a task's items are read in one range. */
  @Column({ type: 'integer' })
  taskId: number;

  @Column({ type: 'varchar', length: 64 })
  sessionId: string;

  @Column({ type: 'varchar', length: 24 })
  claimedAt: string;

  /** Database time (ISO, UTC, milliseconds) after which the claim no longer holds. */
  @Column({ type: 'varchar', length: 24 })
  expiresAt: string;

  /**
   * The session whose lapsed claim this one took over (null when the item
   * was free, or the same session took it again): that session's late
   * changes are refused as taken over (claims fence), even once this claim
   * has ended. The row is kept when the work settles, for that reason.
   */
  @Column({ type: 'varchar', length: 64, nullable: true })
  takenFrom: string | null;

  /** The bearer token's principal that took the claim (null with auth off): the per-token cap counts by it. */
  @Column({ type: 'varchar', length: 64, nullable: true })
  owner: string | null;
}

/**
 * One waits-for edge: `itemId` waits for `dependsOnId` (both of one task).
 * A brief's depends_on writes one per briefed item and item named (`noteId`
 * the brief), in the brief's transaction and replaced with it; an item's own
 * `after` (task_item, updateItem) writes them with `noteId` null, replaced as
 * a set by the next `after`. The brief's JSON stays the text as written; these
 * rows are what every reader of waits reads: ready, blockedBy, blocks,
 * dependsOn, task_read.
 */
@Entity('item_dependencies')
@Index('idx_item_dependencies_item', ['itemId'])
@Index('idx_item_dependencies_task', ['taskId'])
@Index('idx_item_dependencies_target', ['dependsOnId'])
@Index('idx_item_dependencies_brief', ['noteId', 'itemId', 'dependsOnId'], { unique: true })
export class ItemDependencyEntity {
  @PrimaryGeneratedColumn()
  id: number;

  /** The brief that states the wait; null for one the item's own `after` declared. */
  @Column({ type: 'integer', nullable: true })
  noteId: number | null;

  @Column({ type: 'integer' })
  itemId: number;

  @Column({ type: 'integer' })
  dependsOnId: number;

  @Column({ type: 'integer' })
  taskId: number;

  @Column({ type: 'text', nullable: true })
  reason: string | null;
}
