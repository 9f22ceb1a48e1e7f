import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A mutation already answered for an idempotency key: retries get the first result. */
@Entity('idempotency_keys')
export class IdempotencyKeyEntity {
  @PrimaryColumn({ type: 'varchar', length: 32 })
  operation: string;

  /** The caller's session id and its key (see services/kernel/idempotency.ts). */
  @PrimaryColumn({ type: 'varchar', length: 300 })
  key: string;

  /** Hash of the input the key was first used with. */
  @Column({ type: 'varchar', length: 64 })
  fingerprint: string;

  /** Ids of what the first call created, to answer the retry with. */
  @Column({ type: 'simple-json' })
  result: { id: string; itemIds?: string[] };

  @Column({ type: 'varchar', length: 24 })
  createdAt: string;
}
