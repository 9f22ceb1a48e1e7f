import { signal, useSignal } from './signal';

/**
 * "Since you last looked", per browser: the time this person last marked
 * everything seen, kept in localStorage (in memory where storage is blocked).
 * A first visit starts it now, so a new browser is not flooded with the
 * whole log as unread.
 */
const KEY = 'taskbase.lastLooked';

function readStored(): number {
  try {
    const stored = Number(localStorage.getItem(KEY));
    if (Number.isFinite(stored) && stored > 0) return stored;
    const now = Date.now();
    localStorage.setItem(KEY, String(now));
    return now;
  } catch {
    return Date.now();
  }
}

export const lastLooked = signal<number>(readStored());

/** Everything up to now is seen: the markers clear in every open view of this tab. */
export function markAllSeen(): void {
  const now = Date.now();
  try { localStorage.setItem(KEY, String(now)); } catch { /* memory only */ }
  lastLooked.set(now);
}

// Another tab of this browser marked everything seen: this one follows.
addEventListener('storage', (event) => {
  if (event.key === KEY && event.newValue) lastLooked.set(Number(event.newValue));
});

/**
 * When this browser last looked at each task (opened it, or saw its last
 * change while it was open), kept beside lastLooked: a task changed after
 * both is unread in every list that shows it. Only the most recent OPENED_KEPT
 * are kept, so the entry stays small; a task forgotten falls back to lastLooked.
 */
const OPENED_KEY = 'taskbase.lastLookedAt';
const OPENED_KEPT = 500;

function readOpened(): Record<string, number> {
  try {
    const stored: unknown = JSON.parse(localStorage.getItem(OPENED_KEY) ?? '{}');
    return stored && typeof stored === 'object' ? stored as Record<string, number> : {};
  } catch {
    return {};
  }
}

export const lastOpened = signal<Record<string, number>>(readOpened());

/** This person has seen task `id` as it was at `at` (now, by default): its unread marker clears wherever it shows. */
export function markTaskSeen(id: string, at = Date.now()): void {
  const was = lastOpened.get();
  if ((was[id] ?? 0) >= at) return;
  const next = Object.fromEntries(Object.entries({ ...was, [id]: at }).sort(([, a], [, b]) => b - a).slice(0, OPENED_KEPT));
  try { localStorage.setItem(OPENED_KEY, JSON.stringify(next)); } catch { /* memory only */ }
  lastOpened.set(next);
}

addEventListener('storage', (event) => {
  if (event.key === OPENED_KEY) lastOpened.set(readOpened());
});

/**
 * Whether something that happened at `iso` is new since this person last looked;
 * with a task's id, since they last looked at that task, if that was later.
 */
export function useUnread(): (iso: string | null | undefined, taskId?: string) => boolean {
  const since = useSignal(lastLooked);
  const opened = useSignal(lastOpened);
  return (iso, taskId) => Boolean(iso) && Date.parse(iso!) > Math.max(since, (taskId && opened[taskId]) || 0);
}

/** The marker beside a row that changed since the person last looked. */
export function NewMark({ label = 'new' }: { label?: string }) {
  return <span class="unread" title="Changed since you last looked">● {label}</span>;
}
