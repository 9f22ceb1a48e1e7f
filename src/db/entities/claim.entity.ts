import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

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
 * One edge of a brief's depends_on: `itemId` waits for `dependsOnId` (both of
 * one task), written in the same transaction as the brief that says so and
 * replaced with it. The brief's JSON stays the text as written; these rows
 * are what ready, blockedBy and blocks read.
 */
@Entity('item_dependencies')
@Index('idx_item_dependencies_item', ['itemId'])
@Index('idx_item_dependencies_task', ['taskId'])
@Index('idx_item_dependencies_target', ['dependsOnId'])
export class ItemDependencyEntity {
  @PrimaryColumn({ type: 'integer' })
  noteId: number;

  @PrimaryColumn({ type: 'integer' })
  itemId: number;

  @PrimaryColumn({ type: 'integer' })
  dependsOnId: number;

  @Column({ type: 'integer' })
  taskId: number;

  @Column({ type: 'text', nullable: true })
  reason: string | null;
}
