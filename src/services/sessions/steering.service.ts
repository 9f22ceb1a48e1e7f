import type { EntityManager } from 'typeorm';
import type { ChangeAction } from '../../domain/history.js';
import { steeringLines, type SteeringChange } from '../../domain/steering.js';
import type { Caller, Writer } from '../kernel/unit-of-work.js';
import { bool, num, selectRows } from '../kernel/statements.js';

/** Log rows read per call at most: what is beyond is read by the next call. */
const READ_MAX = 100;

/**
 * Rows of the session's own changes (or ones that do not steer) that move
 * the cursor without a line to tell: past this many, the next read would
 * only grow, so the cursor is written even with nothing to say.
 */
const ADVANCE_AFTER = 32;

/** How far past a claim's end a change on its item still counts as made during it: the end is the database's time, a change's the server's. */
const CLAIM_END_SLACK_MS = 1_000;

/**
 * The changes the session may need to hear of, after its cursor, oldest
 * first: those about the session (its plan's changes, a claim of its
 * released or forced), one range of idx_changes_session; and those of items
 * it claimed, made while it held the claim, one range of idx_changes_item per
 * claim row of the session (idx_claims_session). Each with the item as it
 * now stands, its number as the plan's tool set shows it (plan-and-finish:
 * its task id, the order steps were first written; else its place among the
 * live steps), and the task's title.
 */
const STEERING_READ = `SELECT x."id", x."at", x."action", x."madeBy", x."expiresAt", i."id", i."text", i."state", i."deleted", i."note", t."sessionId", t."title",
  CASE WHEN t."sessionId" IS NULL OR i."id" IS NULL THEN NULL
    WHEN (SELECT o."preset" FROM "sessions" o WHERE o."id" = t."sessionId") = 'PLAN_AND_FINISH'
      THEN (SELECT COUNT(*) FROM "items" p WHERE p."taskId" = i."taskId" AND p."id" < i."id")
    ELSE (SELECT COUNT(*) FROM "items" p WHERE p."taskId" = i."taskId" AND p."deleted" = ? AND p."position" < i."position") END
  FROM (
    SELECT * FROM (SELECT c."id", c."at", c."action", c."madeBy", c."taskId", c."itemId", NULL AS "expiresAt" FROM "changes" c
      WHERE c."sessionId" = ? AND c."id" > (SELECT s."steeringCursor" FROM "sessions" s WHERE s."id" = ?) ORDER BY c."id" LIMIT ?) a
    UNION ALL
    SELECT * FROM (SELECT c."id", c."at", c."action", c."madeBy", c."taskId", c."itemId", cl."expiresAt" FROM "claims" cl JOIN "changes" c ON c."itemId" = cl."itemId"
      WHERE cl."sessionId" = ? AND c."id" > (SELECT s."steeringCursor" FROM "sessions" s WHERE s."id" = ?) AND c."at" >= cl."claimedAt"
        AND (c."sessionId" IS NULL OR c."sessionId" <> ?) ORDER BY c."id" LIMIT ?) b
  ) x LEFT JOIN "items" i ON i."id" = x."itemId" LEFT JOIN "memories" t ON t."id" = x."taskId"
  ORDER BY x."id" LIMIT ?`;

/**
 * Moves the cursor only if no other call of the session has moved it past
 * the oldest change this one read: of two calls that read the same changes,
 * one tells them and the other says nothing, so each is said once.
 */
const ADVANCE = `UPDATE "sessions" SET "steeringCursor" = ?, "steeringSeenAt" = COALESCE(?, "steeringSeenAt") WHERE "id" = ? AND "steeringCursor" < ? RETURNING "id"`;

/**
 * Steering: a person's (or another session's) change to a session's plan or
 * to an item it holds a claim on reaches the session's agent at the start of
 * its next tool answer, whatever the tool. Read on the reader at every call,
 * one statement; the writer is taken only when there is something to tell
 * (or a long run of the session's own changes to step over), for the
 * conditional UPDATE of the session's cursor and steeringSeenAt.
 */
export class SteeringService {
  constructor(
    private readonly writer: Writer,
    private readonly reader: () => EntityManager,
  ) {}

  /**
   * The "Since your last call: ..." lines for the calling session, each told
   * once, and the changes they tell of (for a tool that must not undo them);
   * none when nothing changed.
   */
  async sinceLastCall(caller: Caller & { sessionId: string }): Promise<Steered> {
    const sessionId = caller.sessionId;
    const rows = await selectRows(this.reader(), STEERING_READ, [false, sessionId, sessionId, READ_MAX, sessionId, sessionId, sessionId, READ_MAX, READ_MAX]);
    if (rows.length === 0) return NOTHING;
    const changes: SteeringChange[] = [];
    for (const row of rows) {
      const madeBy = row[3] as string | null;
      if (madeBy === sessionId) continue;
      const claimEnd = row[4] as string | null;
      if (claimEnd !== null && Date.parse(row[1] as string) > Date.parse(claimEnd) + CLAIM_END_SLACK_MS) continue;
      changes.push({
        action: row[2] as ChangeAction,
        madeBy,
        item: row[5] === null ? null : { id: String(row[5]), text: row[6] as string, state: row[7] as string, deleted: bool(row[8]), note: row[9] as string | null },
        step: row[12] === null ? null : num(row[12]) + 1,
        taskTitle: row[10] === null ? (row[11] as string | null) ?? '' : null,
      });
    }
    const lines = steeringLines(changes);
    if (lines.length === 0 && rows.length < ADVANCE_AFTER) return NOTHING;
    const oldest = num(rows[0][0]);
    const newest = num(rows[rows.length - 1][0]);
    const told = await this.writer.run(caller, async (uow) => {
      const [moved] = await selectRows(uow.manager, ADVANCE, [newest, lines.length ? uow.now : null, sessionId, oldest]);
      if (moved && lines.length) uow.emit({ entity: 'SESSION', id: sessionId, action: 'STEERING_SEEN' });
      return moved !== undefined;
    }, { asSession: true });
    return told && lines.length ? { lines, changes } : NOTHING;
  }

  /** The session's plan as it now stands: its live steps' text and state, in order (none without a plan). */
  async planNow(sessionId: string): Promise<{ content: string; state: string }[]> {
    const rows = await selectRows(this.reader(), PLAN_NOW, [sessionId, false]);
    return rows.map(([text, state]) => ({ content: text as string, state: state as string }));
  }
}

/** What a call was told: its lines, and the changes they say. */
export interface Steered {
  lines: string[];
  changes: SteeringChange[];
}

const NOTHING: Steered = { lines: [], changes: [] };

const PLAN_NOW = `SELECT i."text", i."state" FROM "sessions" s JOIN "items" i ON i."taskId" = s."planTaskId" WHERE s."id" = ? AND i."deleted" = ? ORDER BY i."position" ASC, i."id" ASC`;
