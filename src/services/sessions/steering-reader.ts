import type { EntityManager } from 'typeorm';
import { sessionIdOf } from '../../domain/session-ids.js';
import { STEERING_ACTIONS } from '../../domain/steering.js';
import { distinct, num, placeholders, selectRows } from '../kernel/statements.js';

/**
 * The latest change a person (a call without a session) made to an agent's
 * plan or to an item it holds a claim on, and whether the agent has been told
 * of it: told once its steering cursor (moved by SteeringService when it
 * tells the agent) has reached the change.
 */
export interface SteeringMark {
  /** The agent session the change steers. */
  sessionId: string;
  changeId: number;
  at: string;
  action: string;
  itemId: number | null;
  /** The item's label as it now stands (null for a change to the plan as a whole). */
  itemText: string | null;
  /** Whether the agent has been told of it: its steering cursor has reached the change. */
  seen: boolean;
  /** When it was told (its steeringSeenAt) once seen; null before. */
  seenAt: string | null;
}

const ACTIONS = placeholders(STEERING_ACTIONS.length);

/** Per session: the newest person's change to its plan (logged under its id) and to items it claims, made while it held the claim. */
const LATEST_FOR_SESSIONS = (count: number) => `SELECT s."id", s."steeringCursor", s."steeringSeenAt",
  (SELECT MAX(x."id") FROM "changes" x WHERE x."sessionId" = s."id" AND x."madeBy" IS NULL AND x."action" IN (${ACTIONS})),
  (SELECT MAX(x."id") FROM "claims" cl JOIN "changes" x ON x."itemId" = cl."itemId" WHERE cl."sessionId" = s."id" AND x."at" >= cl."claimedAt" AND x."madeBy" IS NULL AND x."action" IN (${ACTIONS}))
  FROM "sessions" s WHERE s."id" IN (${placeholders(count)})`;

/** Per item: the newest person's change to it, and the agent it steers: its plan's session, else the session holding its claim (if the change came during the claim). */
const LATEST_FOR_ITEMS = (count: number) => `SELECT i."id", COALESCE(t."sessionId", cl."sessionId"),
  (SELECT MAX(x."id") FROM "changes" x WHERE x."itemId" = i."id" AND x."madeBy" IS NULL AND x."action" IN (${ACTIONS})
    AND (t."sessionId" IS NOT NULL OR x."at" >= cl."claimedAt"))
  FROM "items" i JOIN "memories" t ON t."id" = i."taskId" LEFT JOIN "claims" cl ON cl."itemId" = i."id"
  WHERE i."id" IN (${placeholders(count)}) AND (t."sessionId" IS NOT NULL OR cl."sessionId" IS NOT NULL)`;

const CHANGES = (count: number) => `SELECT c."id", c."at", c."action", c."itemId", i."text" FROM "changes" c LEFT JOIN "items" i ON i."id" = c."itemId" WHERE c."id" IN (${placeholders(count)})`;
const CURSORS = (count: number) => `SELECT s."id", s."steeringCursor", s."steeringSeenAt" FROM "sessions" s WHERE s."id" IN (${placeholders(count)})`;

export class SteeringReader {
  constructor(private readonly reader: () => EntityManager) {}

  /** For each session id: the latest person's change that steers it, or null when a person never changed its plan or claims. */
  async latestForSessions(ids: readonly string[]): Promise<(SteeringMark | null)[]> {
    const possible = distinct(ids.map(sessionIdOf).filter((id): id is string => id !== null));
    if (possible.length === 0) return ids.map(() => null);
    const manager = this.reader();
    const rows = await selectRows(manager, LATEST_FOR_SESSIONS(possible.length), [...STEERING_ACTIONS, ...STEERING_ACTIONS, ...possible]);
    const latest = new Map<string, number>();
    const cursors = new Map<string, Cursor>();
    for (const [id, cursor, seenAt, plan, claimed] of rows) {
      const newest = Math.max(plan === null ? 0 : num(plan), claimed === null ? 0 : num(claimed));
      if (newest > 0) latest.set(id as string, newest);
      cursors.set(id as string, { cursor: num(cursor), seenAt: seenAt as string | null });
    }
    const marks = await this.marks(manager, [...latest].map(([sessionId, changeId]) => ({ sessionId, changeId })), cursors);
    return ids.map((id) => marks.get(sessionIdOf(id) ?? '') ?? null);
  }

  /** For each item id: the latest person's change to it while it was an agent's (a plan step, or claimed), or null. */
  async latestForItems(ids: readonly number[]): Promise<(SteeringMark | null)[]> {
    const possible = distinct(ids);
    if (possible.length === 0) return [];
    const manager = this.reader();
    const rows = await selectRows(manager, LATEST_FOR_ITEMS(possible.length), [...STEERING_ACTIONS, ...possible]);
    const wanted = rows.filter((row) => row[2] !== null).map(([itemId, sessionId, changeId]) => ({ itemId: num(itemId), sessionId: sessionId as string, changeId: num(changeId) }));
    const sessions = distinct(wanted.map((row) => row.sessionId));
    const cursors = new Map<string, Cursor>();
    if (sessions.length) {
      for (const [id, cursor, seenAt] of await selectRows(manager, CURSORS(sessions.length), sessions)) cursors.set(id as string, { cursor: num(cursor), seenAt: seenAt as string | null });
    }
    const marks = await this.marks(manager, wanted, cursors);
    const byItem = new Map(wanted.map((row) => [row.itemId, marks.get(row.sessionId + ':' + row.changeId) ?? marks.get(row.sessionId) ?? null]));
    return ids.map((id) => byItem.get(id) ?? null);
  }

  /** The changes read, as marks keyed by session id (and by session:change for items). */
  private async marks(manager: EntityManager, wanted: readonly { sessionId: string; changeId: number }[], cursors: Map<string, Cursor>): Promise<Map<string, SteeringMark>> {
    const marks = new Map<string, SteeringMark>();
    const changeIds = distinct(wanted.map((row) => row.changeId));
    if (changeIds.length === 0) return marks;
    const changes = new Map((await selectRows(manager, CHANGES(changeIds.length), changeIds)).map((row) => [num(row[0]), row]));
    for (const { sessionId, changeId } of wanted) {
      const change = changes.get(changeId);
      if (!change) continue;
      const cursor = cursors.get(sessionId);
      const mark: SteeringMark = {
        sessionId,
        changeId,
        at: change[1] as string,
        action: change[2] as string,
        itemId: change[3] === null ? null : num(change[3]),
        itemText: change[4] as string | null,
        seen: Boolean(cursor && cursor.cursor >= changeId),
        seenAt: cursor && cursor.cursor >= changeId ? cursor.seenAt : null,
      };
      marks.set(sessionId, mark);
      marks.set(`${sessionId}:${changeId}`, mark);
    }
    return marks;
  }
}

interface Cursor { cursor: number; seenAt: string | null }
