import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api';
import { ago } from './agent-status';
import { onReconnect } from './live';

export function Progress({ done, total, label }: { done: number; total: number; label: string }) {
  return (
    <span class="progress">
      <progress max={Math.max(total, 1)} value={done} aria-label={label} />
      <span>{done}/{total}</span>
    </span>
  );
}

// One formatter for the page: toLocaleString builds a new one per call, which a list of comments re-rendering live paid per row.
let dates: Intl.DateTimeFormat | null = null;

export function when(iso: string | null | undefined): string {
  if (!iso) return '';
  dates ??= new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  return dates.format(new Date(iso));
}

/** A time as people scan a list: relative ("5 min ago"), with the date and time on hover and to assistive technology. */
export function Ago({ iso }: { iso: string }) {
  return <time dateTime={iso} title={when(iso)}>{ago(Date.now() - Date.parse(iso))}</time>;
}

/** A refusal shown beside the control that caused it. */
export function Refusal({ error }: { error: string | null }) {
  return error ? <span class="refusal" role="alert">{error}</span> : null;
}

/** Runs a change and keeps its refusal for the control that asked. */
export function useAction(): [(work: () => Promise<unknown>) => Promise<boolean>, string | null, boolean] {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // A refusal from before a reconnect ("cannot be reached", or one the server may no longer make) is not left standing.
  useEffect(() => onReconnect(() => setError(null)), []);
  const run = async (work: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await work();
      return true;
    } catch (failure) {
      setError(failure instanceof ApiError ? failure.message : String(failure));
      return false;
    } finally {
      setBusy(false);
    }
  };
  return [run, error, busy];
}

export function Loading({ error, children }: { error: string | null; children?: ComponentChildren }) {
  if (error) return <p class="refusal" role="alert">{error}</p>;
  return <p class="muted">{children ?? 'Loading…'}</p>;
}

/** The tab's title names the view, so a person with many tabs (or a screen reader) knows which is which. */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · taskbase`;
  }, [title]);
}

/**
 * Long free text (a goal, a comment, a note) keeps its line breaks and shows
 * its first lines, with "more" to read the rest, so a long goal never fills
 * the first screen.
 */
export function MoreText({ children }: { children: ComponentChildren }) {
  const ref = useRef<HTMLDivElement>(null);
  const [long, setLong] = useState(false);
  const [open, setOpen] = useState(false);
  // Measured when the box's size changes, after the browser's own layout: reading it on every render forced a layout of the
  // whole page per text, which a live task re-rendering ten times a second turned into long tasks.
  useLayoutEffect(() => {
    const box = ref.current;
    if (!box || open) return;
    if (typeof ResizeObserver === 'undefined') { setLong(box.scrollHeight > box.clientHeight + 4); return; }
    const observer = new ResizeObserver(() => setLong(box.scrollHeight > box.clientHeight + 4));
    observer.observe(box);
    return () => observer.disconnect();
  }, [open]);
  return (
    <div class="more-text">
      <div ref={ref} class={`keep-lines ${open ? '' : 'clamped'}`}>{children}</div>
      {(long || open) && <button type="button" class="link small" aria-expanded={open} onClick={() => setOpen(!open)}>{open ? 'less' : 'more'}</button>}
    </div>
  );
}
