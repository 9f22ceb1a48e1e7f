import { CHOOSE_EVENT } from './state-menu';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useFocusTrap } from './focus-trap';

/** Dispatched on a row whose details sit in its actions menu: they open, or close when open (the o shortcut). */
export const TOGGLE_DETAILS_EVENT = 'toggle-details';

/**
 * Keyboard shortcuts for what people do most, as in Linear or GitHub: j / k
 * move through the rows of the view, o (or Enter on a row) opens one, x marks
 * a checklist item done, / goes to search, g then a letter goes to a view,
 * ? lists them all. Keys typed into a field are the field's, never a
 * shortcut; each move is announced to screen readers.
 */
export const SHORTCUTS: readonly { keys: string[]; what: string }[] = [
  { keys: ['j'], what: 'Next item' },
  { keys: ['k'], what: 'Previous item' },
  { keys: ['o'], what: 'Open the current item (its page, or its details)' },
  { keys: ['x'], what: 'Mark the current checklist item done (asks for a note where the plan’s rules want one)' },
  { keys: ['/'], what: 'Search' },
  { keys: ['g', 'd'], what: 'Go to Domains' },
  { keys: ['g', 'a'], what: 'Go to Needs attention' },
  { keys: ['g', 's'], what: 'Go to Sessions' },
  { keys: ['g', 'm'], what: 'Go to Maintenance → Reminders' },
  { keys: ['?'], what: 'Show these shortcuts' },
  { keys: ['Esc'], what: 'Close a dialog' },
];

const VIEWS: Record<string, string> = { d: '#/domains', a: '#/attention', s: '#/sessions', m: '#/maintenance/reminders' };
/** The rows j and k move through, in the main pane: a checklist's items, or a list's rows. */
const ROWS = '.checklist > li, table.tasks tbody tr, .session-list > li, ol.hits > li';

/** Says a move in the page's polite live region. */
export function announce(text: string): void {
  const region = document.getElementById('announcer');
  if (!region) return;
  // Cleared first, so the same words said twice are heard twice.
  region.textContent = '';
  requestAnimationFrame(() => { region.textContent = text; });
}

function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el || !el.tagName) return false;
  return el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName);
}

function rows(): HTMLElement[] {
  return [...document.querySelectorAll<HTMLElement>(`main ${ROWS.split(', ').join(', main ')}`)];
}

function rowName(row: HTMLElement): string {
  const text = row.querySelector('.text')?.textContent ?? row.querySelector('a')?.textContent ?? row.textContent ?? '';
  const state = (row.querySelector('select') as HTMLSelectElement | null)?.selectedOptions[0]?.textContent ?? row.querySelector('.state-word')?.textContent ?? row.querySelector('.state')?.textContent ?? '';
  return `${text.trim()}${state ? ` — ${state.trim()}` : ''}`;
}

export function Shortcuts() {
  const [open, setOpen] = useState(false);
  const current = useRef<HTMLElement | null>(null);
  const pendingG = useRef(0);
  useEffect(() => {
    const move = (offset: 1 | -1) => {
      const all = rows();
      if (all.length === 0) return;
      const at = current.current && all.includes(current.current) ? all.indexOf(current.current) : all.findIndex((row) => row.contains(document.activeElement));
      const next = all[Math.min(all.length - 1, Math.max(0, at === -1 ? (offset === 1 ? 0 : all.length - 1) : at + offset))];
      current.current?.classList.remove('kbd-current');
      current.current = next;
      next.classList.add('kbd-current');
      // The row itself takes focus, not its state control: a letter typed on a focused select would pick an option.
      if (next.tabIndex < 0 && !next.hasAttribute('tabindex')) next.setAttribute('tabindex', '-1');
      next.focus({ preventScroll: true });
      next.scrollIntoView({ block: 'nearest' });
      announce(`${all.indexOf(next) + 1} of ${all.length}: ${rowName(next)}`);
    };
    // The row a key acts on: the one j / k reached, else the one holding focus (reached with Tab).
    const currentRow = () => (current.current?.isConnected ? current.current : rows().find((row) => row.contains(document.activeElement)) ?? null);
    const openRow = () => {
      const row = currentRow();
      if (!row) return;
      if (row.dataset.details) {
        const opening = row.dataset.details === 'closed';
        row.dispatchEvent(new CustomEvent(TOGGLE_DETAILS_EVENT));
        announce(`${opening ? 'Opened' : 'Closed'} the details of ${rowName(row)}`);
        return;
      }
      const details = row.querySelector<HTMLButtonElement>('button[aria-expanded]:not([aria-haspopup])');
      if (details) { details.click(); announce(`${details.getAttribute('aria-expanded') === 'true' ? 'Closed' : 'Opened'} the details of ${rowName(row)}`); return; }
      row.querySelector<HTMLAnchorElement>('a[href]')?.click();
    };
    const markDone = () => {
      const row = currentRow();
      const menu = row?.querySelector<HTMLButtonElement>('.state-button');
      if (row && menu) {
        if (menu.dataset.state === 'DONE') return;
        menu.dispatchEvent(new CustomEvent(CHOOSE_EVENT, { detail: 'DONE' }));
        announce(`Marked ${row.querySelector('.text')?.textContent?.trim() ?? 'the item'} ${menu.dataset.doneWord ?? 'done'}`);
        return;
      }
      const select = row?.querySelector<HTMLSelectElement>('select');
      if (!row || !select || select.value === 'DONE') return;
      select.value = 'DONE';
      select.dispatchEvent(new Event('change', { bubbles: true }));
      announce(`Marked ${row.querySelector('.text')?.textContent?.trim() ?? 'the item'} ${select.selectedOptions[0]?.textContent ?? 'done'}`);
    };
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
      if (document.querySelector('[aria-modal="true"]')) return;
      const key = event.key;
      if (pendingG.current && Date.now() - pendingG.current < 1500 && VIEWS[key]) {
        pendingG.current = 0;
        event.preventDefault();
        location.hash = VIEWS[key];
        return;
      }
      pendingG.current = 0;
      if (key === 'g') { pendingG.current = Date.now(); return; }
      if (key === '?') { event.preventDefault(); setOpen(true); return; }
      if (key === '/') {
        event.preventDefault();
        (document.querySelector('header input[type="search"]') as HTMLInputElement | null)?.focus();
        return;
      }
      if (key === 'j') { event.preventDefault(); move(1); return; }
      if (key === 'k') { event.preventDefault(); move(-1); return; }
      if (key === 'o' || (key === 'Enter' && event.target === current.current)) { event.preventDefault(); openRow(); return; }
      if (key === 'x') { event.preventDefault(); markDone(); }
    };
    // A new view starts from its first row.
    const onRoute = () => { current.current?.classList.remove('kbd-current'); current.current = null; };
    document.addEventListener('keydown', onKey);
    addEventListener('hashchange', onRoute);
    return () => { document.removeEventListener('keydown', onKey); removeEventListener('hashchange', onRoute); };
  }, []);
  return (
    <>
      <div id="announcer" class="sr" aria-live="polite" />
      {open && <ShortcutsDialog onClose={() => setOpen(false)} />}
    </>
  );
}

function ShortcutsDialog({ onClose }: { onClose(): void }) {
  const ref = useRef<HTMLDivElement>(null);
  useFocusTrap(ref, onClose);
  return (
    <div class="token-overlay" onClick={(event) => { if (event.target === event.currentTarget) onClose(); }}>
      <div class="dialog" role="dialog" aria-modal="true" aria-labelledby="shortcuts-heading" ref={ref}>
        <h2 id="shortcuts-heading">Keyboard shortcuts</h2>
        <table class="shortcuts">
          <caption class="sr">Keys and what they do</caption>
          <thead><tr><th scope="col">Keys</th><th scope="col">Does</th></tr></thead>
          <tbody>
            {SHORTCUTS.map((shortcut) => (
              <tr><td>{shortcut.keys.map((key, index) => <>{index ? ' then ' : ''}<kbd>{key}</kbd></>)}</td><td>{shortcut.what}</td></tr>
            ))}
          </tbody>
        </table>
        <p class="muted small">Keys typed into a field are the field’s. Enter on a row opens it too.</p>
        <button type="button" onClick={onClose}>Close</button>
      </div>
    </div>
  );
}
