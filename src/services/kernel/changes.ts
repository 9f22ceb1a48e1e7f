import { EventEmitter } from 'node:events';
import type { ChangeAction, ChangeEntity } from '../../domain/history.js';

/**
 * What a committed mutation changed, published after commit. The live
 * dashboard (subscriptions) and other servers' caches listen here; every
 * mutation emits at least one.
 */
export interface ChangeEvent {
  /** TASK, NOTE, SESSION or SETTINGS. */
  entity: ChangeEntity;
  id: string;
  /** What happened, e.g. TASK_CREATED, ITEM_STATE, NOTE_EDITED, PLAN_WRITTEN. */
  action: ChangeAction;
  sessionId: string | null;
  at: string;
  /**
   * For a task or note: its kind and domain after the change, when the writer
   * knew them (subscription filters need them; without, they are read back).
   */
  memory?: { kind: 'TASK' | 'NOTE'; domain: string | null };
}

export class ChangeBus {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  publish(event: ChangeEvent): void {
    this.emitter.emit('change', event);
  }

  subscribe(listener: (event: ChangeEvent) => void): () => void {
    this.emitter.on('change', listener);
    return () => this.emitter.off('change', listener);
  }
}
