import { randomUUID } from 'node:crypto';
import type { ChangeAction, ChangeEntity } from '../../../domain/history.js';

/**
 * What a committed mutation changed: written to the change log in the
 * mutation's own transaction, and read back from it by every server's change
 * feed (subscriptions, task_next's wake-ups) and by the webhook dispatcher.
 * A write that changes a task, note, session or the settings emits at least
 * one; a refused write, a write that changes nothing, and a webhook's own
 * create or delete emit none.
 */
export interface ChangeEvent {
  /** TASK, NOTE, SESSION or SETTINGS. */
  entity: ChangeEntity;
  id: string;
  /** What happened, e.g. TASK_CREATED, ITEM_STATE, NOTE_EDITED, PLAN_WRITTEN. */
  action: ChangeAction;
  /** The calling agent session (its x-session-id, as the unit of work has it); null for a caller without one. */
  madeBy: string | null;
  at: string;
  /** For a task or note: its kind and domain after the change (subscription filters route by them). */
  memory?: { kind: 'TASK' | 'NOTE'; domain: string | null };
  /** What else the change is about, beyond its entity: the one item it changed, the session whose plan it is, the plan's task. */
  about?: { taskId?: string | null; itemId?: string | null; sessionId?: string | null };
  /** Its place in the change log, once read from there: the base of a cursor (domain/change-cursor.ts). */
  logId?: number;
}

/**
 * "This process just committed changes": a wake-up for its own change feed,
 * so its own changes are read from the log at once instead of at the next
 * poll. It carries no events on purpose: the log is the one path they are
 * delivered by, so none is delivered twice. It carries where the log ended
 * after the commit (the newest id the commit appended), so a feed with
 * nobody wanting the changes' rows knows where the log ends without asking
 * the database, and the tag its writer's PostgreSQL notifications carry, so
 * that feed can tell its own commits' notifications from other processes'.
 */
export class CommitSignal {
  private readonly listeners = new Set<(newestId: number | null) => Promise<void> | void>();
  /** What this process's commits NOTIFY with on PostgreSQL (one per signal: two servers in one process each have their own). */
  readonly tag = randomUUID();

  /**
   * `newestId`: the newest log id the commit appended; null when not known
   * (the feed then reads where the log ends). Resolves once every listener
   * has done what the commit asked of it (the change feed: a read of the log
   * begun after it).
   */
  async notify(newestId: number | null = null): Promise<void> {
    await Promise.all([...this.listeners].map((listener) => listener(newestId)));
  }

  /** Whether anything listens (a server's change feed): a process without one moves its own changes into the log (Writer). */
  get heard(): boolean {
    return this.listeners.size > 0;
  }

  onCommit(listener: (newestId: number | null) => Promise<void> | void): () => void {
    // Wrapped: the same function registered twice is two listeners, each removed by its own unsubscribe.
    const each = (newestId: number | null) => listener(newestId);
    this.listeners.add(each);
    return () => this.listeners.delete(each);
  }
}
