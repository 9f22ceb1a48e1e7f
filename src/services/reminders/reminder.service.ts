import { In, type EntityManager } from 'typeorm';
import { changeReminderSettings, DEFAULT_REMINDER_SETTINGS, remindedBefore, reminderText, type ReminderSettings } from '../../domain/reminders.js';
import { inScope } from '../../domain/domains.js';
import { STUCK_ITEM_STATES } from '../../domain/states.js';
import { ItemEntity, SessionEntity, SettingEntity, type MemoryEntity } from '../../db/entities/index.js';
import { countsOf } from '../../db/task-counts.js';
import { openTasksIn } from '../memories/memory-reader.js';
import { domainsOfSessions } from '../sessions/session-reader.js';
import { loadCallingSession } from '../sessions/session-store.js';
import type { Caller, Writer } from '../kernel/unit-of-work.js';

const SETTINGS_KEY = 'reminders';
/** A reminder lists at most this many tasks, most recently updated first. */
export const REMINDER_TASKS_MAX = 20;

export interface Reminder {
  text: string;
  tasks: MemoryEntity[];
  domains: string[];
}

async function readSettings(manager: EntityManager): Promise<ReminderSettings> {
  const row = await manager.findOneBy(SettingEntity, { key: SETTINGS_KEY });
  return { ...DEFAULT_REMINDER_SETTINGS, ...((row?.value as Partial<ReminderSettings> | undefined) ?? {}) };
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

  /** The turn of the calling session ends: its reminder when one is due, else null. */
  async endTurn(caller: Caller): Promise<Reminder | null> {
    return this.writer.run(caller, async (uow) => {
      const session = await loadCallingSession(uow);
      const settings = await readSettings(uow.manager);
      if (!settings.enabled) return null;
      const [domains] = await domainsOfSessions(uow.manager, [session.id]);
      if (domains.length === 0) return null;
      const tasks = await openTasksIn(uow.manager, domains, REMINDER_TASKS_MAX);
      if (tasks.length === 0) return null;
      const claimed = await uow.manager
        .createQueryBuilder()
        .update(SessionEntity)
        .set({ lastRemindedAt: uow.now })
        .where('id = :id AND ("lastRemindedAt" IS NULL OR "lastRemindedAt" <= :before)', { id: session.id, before: remindedBefore(new Date(uow.now), settings.intervalMinutes) })
        .execute();
      if (!claimed.affected) return null;
      // Progress from the counts the task rows keep; of the items, only those in progress or stuck are read.
      const items = await uow.manager.find(ItemEntity, {
        where: { taskId: In(tasks.map((task) => task.id)), deleted: false, state: In(['IN_PROGRESS', ...STUCK_ITEM_STATES]) }, order: { position: 'ASC', id: 'ASC' },
      });
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
      uow.emit({ entity: 'SESSION', id: session.id, action: 'REMINDED' });
      return { text, tasks, domains };
    }, { asSession: true });
  }
}
