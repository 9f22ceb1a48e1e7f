import type { LoggedChangeEntity } from '../../../db/entities/index.js';
import { encodeChangeCursor } from '../../../domain/change-cursor.js';

/**
 * One change of the public feed, as `changes` answers it and a webhook's
 * body carries it: its id is the opaque cursor of its place in the log
 * (domain/change-cursor.ts), so a client keeps one string to resume from.
 */
export interface LoggedChange {
  id: string;
  at: string;
  action: string;
  madeBy: string | null;
  memoryId: string | null;
  domain: string | null;
  taskId: string | null;
  itemId: string | null;
  sessionId: string | null;
}

const idOf = (value: number | null): string | null => (value === null ? null : String(value));

export function loggedChangeOf(row: LoggedChangeEntity): LoggedChange {
  return {
    id: encodeChangeCursor(Number(row.id)),
    at: row.at,
    action: row.action,
    madeBy: row.madeBy,
    memoryId: row.kind === null ? null : row.entityId,
    domain: row.domain,
    taskId: idOf(row.taskId),
    itemId: idOf(row.itemId),
    sessionId: row.sessionId,
  };
}
