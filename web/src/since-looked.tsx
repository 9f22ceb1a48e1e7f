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

/** Whether something that happened at `iso` is new since this person last looked. */
export function useUnread(): (iso: string | null | undefined) => boolean {
  const since = useSignal(lastLooked);
  return (iso) => Boolean(iso) && Date.parse(iso!) > since;
}

/** The marker beside a row that changed since the person last looked. */
export function NewMark({ label = 'new' }: { label?: string }) {
  return <span class="unread" title="Changed since you last looked">● {label}</span>;
}
