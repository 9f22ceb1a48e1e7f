import { DomainError } from './errors.js';

export interface ReminderSettings {
  enabled: boolean;
  intervalMinutes: number;
}

export const DEFAULT_REMINDER_SETTINGS: ReminderSettings = Object.freeze({ enabled: true, intervalMinutes: 30 });
const INTERVAL_MINUTES_MIN = 1;
const INTERVAL_MINUTES_MAX = 1440;

/** Applies a change to the settings; the interval is whole minutes from 1 to 1440 (a day). */
export function changeReminderSettings(current: ReminderSettings, change: { enabled?: boolean | null; intervalMinutes?: number | null }): ReminderSettings {
  const next = { ...current };
  if (change.enabled !== null && change.enabled !== undefined) next.enabled = change.enabled;
  if (change.intervalMinutes !== null && change.intervalMinutes !== undefined) {
    const minutes = change.intervalMinutes;
    if (!Number.isInteger(minutes) || minutes < INTERVAL_MINUTES_MIN || minutes > INTERVAL_MINUTES_MAX) {
      throw new DomainError(
        'BAD_USER_INPUT',
        `intervalMinutes must be a whole number of minutes from ${INTERVAL_MINUTES_MIN} to ${INTERVAL_MINUTES_MAX}; got ${minutes}.`,
        { field: 'intervalMinutes', count: minutes, min: INTERVAL_MINUTES_MIN, limit: INTERVAL_MINUTES_MAX },
      );
    }
    next.intervalMinutes = minutes;
  }
  return next;
}

/**
 * The latest reminder time that still allows another one now: a session last
 * reminded at or before this instant may be reminded again.
 */
export function remindedBefore(now: Date, intervalMinutes: number): string {
  return new Date(now.getTime() - intervalMinutes * 60_000).toISOString();
}

/** What a reminder lists of one open task. */
interface ReminderTask {
  id: string;
  title: string;
  domain: string;
  done: number;
  total: number;
  inProgress: string[];
  /** Items that are BLOCKED or FAILED, e.g. "Cover refunds (BLOCKED)": the reason the task is still open. */
  stuck: string[];
}

/** The reminder as the agent reads it: which open tasks of its domains to bring up to date, and how. */
export function reminderText(tasks: readonly ReminderTask[], domains: readonly string[]): string {
  const lines = tasks.map((task) => {
    const doing = task.inProgress.length ? `; in progress: ${task.inProgress.join(', ')}` : '';
    const stuck = task.stuck.length ? `; stuck: ${task.stuck.join(', ')}` : '';
    return `- ${task.title} (task ${task.id}, ${task.domain}): ${task.done}/${task.total} done${doing}${stuck}`;
  });
  const count = tasks.length === 1 ? '1 open task' : `${tasks.length} open tasks`;
  return [
    `Before you stop: ${count} in ${domains.join(', ')} may be out of date.`,
    ...lines,
    // Only what every surface takes: the knowledge-base tools set todo, doing, done and dropped, not blocked or failed.
    'Update each one: mark finished items done (with what you checked), mark work decided against dropped (with the reason), and add items for work that is left.',
  ].join('\n');
}
