import type { EntityManager } from 'typeorm';
import { dbNowSql, kindOf } from '../../db/db-clock.js';
import { num, placeholders, runStatement, selectRows } from '../kernel/statements.js';
import type { Writer } from '../kernel/unit-of-work.js';

/**
 * A lease that runs out records a change, ITEM_CLAIM_EXPIRED, so the change
 * feed, subscriptions, webhooks and a waiting task_next hear that its item
 * is ready again. Nothing writes when a lease runs out (expiry is a
 * comparison with the database's clock), so each server sweeps: every
 * second it reads the claims that ended since its last look and are not
 * accounted for, and records one change for each.
 *
 * "Accounted for" is a row of claim_expiries (the item and the instant its
 * claim ended): written here when the expiry is told, and by
 * noteClaimsEnded when a claim is ended on purpose (done, dropped, released,
 * its session finished), which is a change of its own. The row's primary
 * key makes the sweep safe on several servers: the INSERT that takes a
 * claim's row tells it, and a concurrent sweep's INSERT of the same row does
 * nothing (on PostgreSQL it waits for the first to commit), so each expiry
 * is told once.
 */

/** Claims told per sweep; more wait for the next second. */
const SWEEP_BATCH = 100;
/** How far before its last clean look a sweep reads again: covers a clock between this server and the database that differs by up to this. */
const LOOK_BACK_MS = 60_000;

/** The claims just ended on purpose (by item or by session) are accounted for: their end is not told as an expiry. */
export async function noteClaimsEnded(manager: EntityManager, by: 'itemId' | 'sessionId', values: readonly (number | string)[]): Promise<void> {
  if (values.length === 0) return;
  await runStatement(manager, accountClaimsEndedSql(`SELECT c."itemId", c."expiresAt" FROM "claims" c WHERE c."${by}" IN (${placeholders(values.length)})
    AND c."expiresAt" <= ${dbNowSql(kindOf(manager))}`), values);
}

/**
 * The statement that accounts for ended claims: `ended` is SQL giving each
 * one's "itemId" and "expiresAt" (as noteClaimsEnded reads them, or from the
 * RETURNING of the statement that ended them, for a caller that ends and
 * accounts in one round trip).
 */
export function accountClaimsEndedSql(ended: string): string {
  // WHERE 1 = 1: SQLite would read ON CONFLICT after a bare FROM as a join's ON.
  return `INSERT INTO "claim_expiries" ("itemId", "expiresAt") SELECT "itemId", "expiresAt" FROM (${ended}) ended WHERE 1 = 1 ON CONFLICT DO NOTHING`;
}

interface Expired {
  itemId: number;
  taskId: number;
  sessionId: string;
  domain: string | null;
}

export class ClaimExpiries {
  /** The instant before which every ended claim is told or accounted for: none at first, so a start reads every claim once. */
  private since = '';

  /**
   * `look` is the connection the once-a-second read runs on: the change
   * feed's own (Database.tail), beside the requests' reader, so an idle
   * sweep never queues behind a request's reads on SQLite's one reader.
   */
  constructor(
    private readonly writer: Writer,
    private readonly look: () => Promise<EntityManager>,
  ) {}

  /** Tells every claim that ran out since the last sweep and is not accounted for; how many this sweep told. */
  async sweep(startedAt = Date.now()): Promise<number> {
    const manager = await this.look();
    const found = (await selectRows(manager, `SELECT c."itemId" FROM "claims" c
      WHERE c."expiresAt" > ? AND c."expiresAt" <= ${dbNowSql(kindOf(manager))}
      AND NOT EXISTS (SELECT 1 FROM "claim_expiries" e WHERE e."itemId" = c."itemId" AND e."expiresAt" = c."expiresAt")
      ORDER BY c."expiresAt" LIMIT ${SWEEP_BATCH}`, [this.since])).map((row) => num(row[0]));
    const told = found.length ? await this.tell(found) : 0;
    // Past a full batch more may be waiting: look from the same instant again.
    if (found.length < SWEEP_BATCH) this.since = new Date(startedAt - LOOK_BACK_MS).toISOString();
    return told;
  }

  /** In one transaction: takes the claims' rows of claim_expiries (those still ended, and not taken by another server) and records a change for each. */
  private async tell(itemIds: readonly number[]): Promise<number> {
    return this.writer.run({ sessionId: null, principal: null }, async (uow) => {
      const kind = kindOf(uow.manager);
      const taken = (await selectRows(uow.manager, `INSERT INTO "claim_expiries" ("itemId", "expiresAt")
        SELECT c."itemId", c."expiresAt" FROM "claims" c WHERE c."itemId" IN (${placeholders(itemIds.length)}) AND c."expiresAt" <= ${dbNowSql(kind)}
        ON CONFLICT DO NOTHING RETURNING "itemId"`, itemIds)).map((row) => num(row[0]));
      if (taken.length === 0) return 0;
      const expired: Expired[] = (await selectRows(uow.manager, `SELECT c."itemId", c."taskId", c."sessionId", m."domain" FROM "claims" c
        JOIN "memories" m ON m."id" = c."taskId" WHERE c."itemId" IN (${placeholders(taken.length)}) ORDER BY c."expiresAt", c."itemId"`, taken))
        .map(([itemId, taskId, sessionId, domain]) => ({ itemId: num(itemId), taskId: num(taskId), sessionId: String(sessionId), domain: domain as string | null }));
      for (const claim of expired) {
        uow.emit({
          entity: 'TASK', id: String(claim.taskId), action: 'ITEM_CLAIM_EXPIRED', memory: { kind: 'TASK', domain: claim.domain },
          about: { itemId: String(claim.itemId), sessionId: claim.sessionId },
        });
      }
      // Rows whose claim was since taken again (a new expiry) account for nothing now.
      await runStatement(uow.manager, `DELETE FROM "claim_expiries" WHERE NOT EXISTS
        (SELECT 1 FROM "claims" c WHERE c."itemId" = "claim_expiries"."itemId" AND c."expiresAt" = "claim_expiries"."expiresAt")`, []);
      return expired.length;
    });
  }
}
