import type { EntityManager } from 'typeorm';
import { changeReminderSettings, DEFAULT_REMINDER_SETTINGS, remindedBefore, reminderText, type ReminderSettings } from '../../domain/reminders.js';
import { inScope } from '../../domain/domains.js';
import { noSession } from '../../domain/plan-steps.js';
import { sessionIdOf } from '../../domain/session-ids.js';
import { DOMAINS_PER_SESSION_MAX } from '../../domain/session-limits.js';
import { STUCK_ITEM_STATES, type ItemState } from '../../domain/states.js';
import { SettingEntity, type MemoryEntity } from '../../db/entities/index.js';
import { countsOf } from '../../db/task-counts.js';
import { openTasksIn } from '../memories/memory-reader.js';
import { json, num, placeholders, selectRows } from '../kernel/statements.js';
import { assertOwner, type Caller, type Clock, type Writer } from '../kernel/unit-of-work.js';

const SETTINGS_KEY = 'reminders';
/** A reminder lists at most this many tasks, most recently updated first. */
export const REMINDER_TASKS_MAX = 20;

export interface Reminder {
  text: string;
  tasks: MemoryEntity[];
  domains: string[];
}

/** The stored settings (a simple-json column: its JSON text on both databases) over the defaults. */
function settingsOf(value: unknown): ReminderSettings {
  const stored = value === null || value === undefined ? undefined : json<Partial<ReminderSettings> | null>(value);
  return { ...DEFAULT_REMINDER_SETTINGS, ...(stored ?? {}) };
}

async function readSettings(manager: EntityManager): Promise<ReminderSettings> {
  const [row] = await selectRows(manager, SELECT_SETTINGS, [SETTINGS_KEY]);
  return settingsOf(row?.[0]);
}

/** What decides whether a turn's end may remind: the calling session, the settings and the domains it named. */
interface TurnState {
  session: { id: string; owner: string | null; lastRemindedAt: string | null };
  settings: ReminderSettings;
  domains: string[];
}

/**
 * The calling session (its owner and when it was last reminded), the
 * settings and the session's domains, in one statement on the reader: a row
 * per domain (one with a null domain when it named none), the first
 * DOMAINS_PER_SESSION_MAX in the domains' order, the list domainsOfSessions
 * gives. Null when no started session has the id.
 */
async function readTurnState(manager: EntityManager, sessionId: string): Promise<TurnState | null> {
  const rows = await selectRows(manager, SELECT_TURN_STATE, [SETTINGS_KEY, sessionId]);
  if (rows.length === 0) return null;
  const [first] = rows;
  return {
    session: { id: first[0] as string, owner: first[1] as string | null, lastRemindedAt: first[2] as string | null },
    settings: settingsOf(first[3]),
    domains: rows.flatMap((row) => (row[4] === null ? [] : [row[4] as string])),
  };
}

/** Of these tasks' live items, those in progress or stuck, in list order: all a reminder names of its items. */
async function openWorkOf(manager: EntityManager, taskIds: readonly number[]): Promise<{ taskId: number; text: string; state: ItemState }[]> {
  const states: ItemState[] = ['IN_PROGRESS', ...STUCK_ITEM_STATES];
  const sql = `SELECT i."taskId", i."text", i."state" FROM "items" i WHERE i."taskId" IN (${placeholders(taskIds.length)})`
    + ` AND i."deleted" = ? AND i."state" IN (${placeholders(states.length)}) ORDER BY i."position" ASC, i."id" ASC`;
  const rows = await selectRows(manager, sql, [...taskIds, false, ...states]);
  return rows.map((row) => ({ taskId: num(row[0]), text: row[1] as string, state: row[2] as ItemState }));
}

/**
 * End-of-turn reminders: when a session has named domains with open tasks,
 * ask it (at most once per interval) to bring them up to date. Whether one
 * is due is decided by one conditional UPDATE of the session's
 * lastRemindedAt, so two servers on one database never remind twice.
 */
export class ReminderService {
  constructor(
    private readonly writer: Writer,
    private readonly reader: () => EntityManager,
    private readonly clock: Clock,
  ) {}

  settings(): Promise<ReminderSettings> {
    return readSettings(this.reader());
  }

  async updateSettings(caller: Caller, change: { enabled?: boolean | null; intervalMinutes?: number | null }): Promise<ReminderSettings> {
    return this.writer.run(caller, async (uow) => {
      const next = changeReminderSettings(await readSettings(uow.manager), change);
      await uow.manager.upsert(SettingEntity, { key: SETTINGS_KEY, value: next }, ['key']);
      uow.emit({ entity: 'SETTINGS', id: SETTINGS_KEY, action: 'SETTINGS_CHANGED' });
      return next;
    });
  }

  /**
   * The turn of the calling session ends: its reminder when one is due, else
   * null. Almost every turn has none due, so whether one can be is decided
   * on the reader (no transaction, no write lock: a turn with nothing due
   * queued behind every other write on SQLite's one writer). Only a turn
   * that finds one due takes the writer, for the conditional UPDATE that
   * claims it; the reminder lists what the reader found just before.
   */
  async endTurn(caller: Caller): Promise<Reminder | null> {
    const sessionId = sessionIdOf(caller.sessionId);
    if (!sessionId) throw noSession();
    const reader = this.reader();
    const state = await readTurnState(reader, sessionId);
    // What the Writer's checkCaller refuses (asSession), refused the same here before anything is read for a write.
    if (!state) throw noSession();
    assertOwner(state.session, caller);
    const { settings, domains } = state;
    if (!settings.enabled || domains.length === 0) return null;
    // The claim's own condition, asked first: a session reminded within the interval reads nothing more.
    if (!mayRemind(state.session.lastRemindedAt, remindedBefore(this.clock(), settings.intervalMinutes))) return null;
    const tasks = await openTasksIn(reader, domains, REMINDER_TASKS_MAX);
    if (tasks.length === 0) return null;
    // Progress from the counts the task rows keep; of the items, only those in progress or stuck are read.
    // Read before the claim, so a claimed reminder is always one that can be answered.
    const items = await openWorkOf(reader, tasks.map((task) => task.id));
    const claimed = await this.writer.run(caller, async (uow) => {
      const [row] = await selectRows(uow.manager, CLAIM_REMINDER, [uow.now, sessionId, remindedBefore(new Date(uow.now), settings.intervalMinutes)]);
      if (!row) return false;
      uow.emit({ entity: 'SESSION', id: sessionId, action: 'REMINDED' });
      return true;
    }, { asSession: true });
    if (!claimed) return null;
    const text = reminderText(
      tasks.map((task) => {
        const progress = countsOf(task);
        const own = items.filter((item) => item.taskId === task.id);
        const inProgress = own.filter((item) => item.state === 'IN_PROGRESS').map((item) => item.text);
        const stuck = own.filter((item) => STUCK_ITEM_STATES.includes(item.state)).map((item) => `${item.text} (${item.state})`);
        return { id: String(task.id), title: task.title, domain: task.domain ?? '', done: progress.done, total: progress.total, inProgress, stuck };
      }),
      // The text names only the domains that hold one of the open tasks listed.
      domains.filter((domain) => tasks.some((task) => task.domain !== null && inScope(task.domain, domain))),
    );
    return { text, tasks, domains };
  }
}

/** A session may be reminded when it never was, or last was at or before `before` (CLAIM_REMINDER's condition). */
function mayRemind(lastRemindedAt: string | null, before: string): boolean {
  return lastRemindedAt === null || lastRemindedAt <= before;
}

const SELECT_SETTINGS = `SELECT "value" FROM "settings" WHERE "key" = ?`;

const SELECT_TURN_STATE = `SELECT s."id", s."owner", s."lastRemindedAt", (SELECT t."value" FROM "settings" t WHERE t."key" = ?), d."domain"`
  + ` FROM "sessions" s LEFT JOIN "session_domains" d ON d."sessionId" = s."id"`
  + ` WHERE s."id" = ? ORDER BY d."domain" LIMIT ${DOMAINS_PER_SESSION_MAX}`;

/**
 * The one arbiter of a reminder: it moves lastRemindedAt only when the
 * interval has passed, so of two servers (or two calls) that both read one
 * as due, one gets the row back and the other none. On PostgreSQL the
 * second waits for the first's row lock and then finds the condition false.
 */
const CLAIM_REMINDER = `UPDATE "sessions" SET "lastRemindedAt" = ? WHERE "id" = ? AND ("lastRemindedAt" IS NULL OR "lastRemindedAt" <= ?) RETURNING "id"`;
