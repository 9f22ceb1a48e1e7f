import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { withRuleDefaults, type PlanPreset, type PlanRules } from '../../domain/plan-rules.js';

/** An agent's chat. Its plan is a task row (planTaskId) with no domain. */
@Entity('sessions')
@Index('idx_sessions_parent_created', ['parentId', 'createdAt', 'id'])
@Index('idx_sessions_top_created', ['createdAt', 'id'], { where: '"parentId" IS NULL' })
export class SessionEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id: string;

  @Column({ type: 'varchar', length: 64, nullable: true })
  parentId: string | null;

  /** Read with defaults for rules added after a session was stored, so an older session still has every rule. */
  @Column({ type: 'simple-json', transformer: { from: (stored: PlanRules | null) => (stored ? withRuleDefaults(stored) : stored), to: (rules: PlanRules) => rules } })
  rules: PlanRules;

  @Column({ type: 'integer', nullable: true })
  planTaskId: number | null;

  /** False once a new turn starts: the chat stops showing the plan above the message box. */
  @Column({ type: 'boolean', default: false })
  planStanding: boolean;

  @Column({ type: 'integer', default: 0 })
  turn: number;

  @Column({ type: 'varchar', length: 24, nullable: true })
  finishedAt: string | null;

  @Column({ type: 'varchar', length: 24, nullable: true })
  lastRemindedAt: string | null;

  @Column({ type: 'varchar', length: 24 })
  createdAt: string;

  /** What the agent or its MCP client called the session when it started; null when neither said. */
  @Column({ type: 'varchar', length: 120, nullable: true })
  name: string | null;

  /** The tool set it started with (startSession's preset, the MCP connection's plan set); null for sessions stored before it was kept. */
  @Column({ type: 'varchar', length: 20, nullable: true })
  preset: PlanPreset | null;

  /**
   * The principal (a digest of the bearer token, src/http/auth.ts) that started the
   * session; only it may change the session. Null when started without auth.
   * Never shown through the API.
   */
  @Column({ type: 'varchar', length: 64, nullable: true })
  owner: string | null;

  /**
   * The change-log id up to which the session's agent has been told of
   * others' changes to its plan and claimed items ("Since your last call:",
   * services/sessions/steering.service.ts). PostgreSQL's BIGINT arrives as a string.
   */
  @Column({ type: 'integer', default: 0 })
  steeringCursor: number | string;

  /** When the agent was last told of such changes; null when never. */
  @Column({ type: 'varchar', length: 24, nullable: true })
  steeringSeenAt: string | null;
}

/** A word of a session's name (domain/session-names.ts nameWords): what a search of the sessions list by name reads, a range of this key per word. */
@Entity('session_name_words')
export class SessionNameWordEntity {
  @PrimaryColumn({ type: 'varchar', length: 120 })
  word: string;

  @PrimaryColumn({ type: 'varchar', length: 64 })
  sessionId: string;
}

/** A domain a session named in its calls, for reminders. */
@Entity('session_domains')
export class SessionDomainEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  sessionId: string;

  @PrimaryColumn({ type: 'varchar', length: 400 })
  domain: string;

  @Column({ type: 'varchar', length: 24 })
  createdAt: string;
}

/**
 * A chat key (x-session-key, --session-key) and the session it names: one
 * per bearer token's principal and key, so a chat that reconnects with its
 * key finds its session and plan, and another token's same key is another
 * chat. principal is '' with auth off (one namespace).
 */
@Entity('session_keys')
export class SessionKeyEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  principal: string;

  @PrimaryColumn({ type: 'varchar', length: 128 })
  key: string;

  @Column({ type: 'varchar', length: 64 })
  sessionId: string;

  @Column({ type: 'varchar', length: 24 })
  createdAt: string;
}
