import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** An outside endpoint that receives the changes of a domain (and those under it), or of everything. */
@Entity('webhooks')
export class WebhookEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @Column({ type: 'varchar', length: 2000 })
  url: string;

  /** Domain prefix; null for every change. */
  @Column({ type: 'varchar', length: 400, nullable: true })
  domain: string | null;

  /** The HMAC key of X-Taskbase-Signature. Never answered by the API. */
  @Column({ type: 'varchar', length: 200 })
  secret: string;

  /** False once a delivery failed every attempt: nothing more is sent, and nothing is queued for it. */
  @Column({ type: 'boolean' })
  active: boolean;

  @Column({ type: 'varchar', length: 24 })
  createdAt: string;

  /** The last change-log id delivered (its cursor). PostgreSQL's BIGINT arrives as a string. */
  @Column({ type: 'bigint' })
  position: number | string;

  /** The last change-log id of the POST under way (its open delivery); null when none is. */
  @Column({ type: 'bigint', nullable: true })
  sending: number | string | null;

  /** The principal of the token that created it (src/http/auth.ts principalOf); null when auth was off. */
  @Column({ type: 'varchar', length: 64, nullable: true })
  owner: string | null;
}

/**
 * One POST to one webhook: the changes after `afterChangeId` up to
 * `throughChangeId` under its domain, in log order. Sent until it is answered
 * 2xx or its webhook gives up; the body is rebuilt from the change log for
 * every attempt, so each carries the same bytes.
 */
@Entity('webhook_deliveries')
export class WebhookDeliveryEntity {
  /** Also X-Taskbase-Delivery: the same on every attempt. */
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number | string;

  @Column({ type: 'integer' })
  webhookId: number;

  @Column({ type: 'bigint' })
  afterChangeId: number | string;

  @Column({ type: 'bigint' })
  throughChangeId: number | string;

  /** How many changes it carries; 0 for the record of changes pruned before they could be sent. */
  @Column({ type: 'integer' })
  changeCount: number;

  /** The first change it carries, as the body does (JSON); null when they were pruned. */
  @Column({ type: 'text', nullable: true })
  firstChange: string | null;

  @Column({ type: 'integer' })
  attempts: number;

  /** HTTP status of the last attempt; null when it got none (could not connect, timed out, refused target). */
  @Column({ type: 'integer', nullable: true })
  lastStatus: number | null;

  /** Why the last attempt got no status (could not connect, timed out, refused target); null after an answer. */
  @Column({ type: 'varchar', length: 300, nullable: true })
  lastError: string | null;

  @Column({ type: 'varchar', length: 24, nullable: true })
  deliveredAt: string | null;

  /** When the next attempt is due; null once delivered or given up. */
  @Column({ type: 'varchar', length: 24, nullable: true })
  nextAttemptAt: string | null;

  /** A server is sending it until then; another may take it only after (a server that died mid-send is covered). */
  @Column({ type: 'varchar', length: 24, nullable: true })
  leasedUntil: string | null;
}
