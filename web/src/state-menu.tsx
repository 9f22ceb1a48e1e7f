import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { STATES } from './states';

interface Props {
  id: string;
  /** What the item is called: the button is named "<label>: <state>". */
  label: string;
  /** The state shown: the recorded one, or one waiting on a reason. */
  value: string;
  words: Record<string, string>;
  /** Called once per choice the person makes (a click, Enter or Space on an item), never while they move through the menu. */
  choose(state: string): void;
  /** "With a reason…": the person wants to give a reason with the state they pick next. */
  withReason(): void;
}

/** Dispatched on a state menu's button with a state as detail: that state is chosen, as if picked from the menu. */
export const CHOOSE_EVENT = 'choose-state';

/** States whose row says why: choosing them asks for a reason (which may be left empty). */
export const SAYS_WHY = new Set(['BLOCKED', 'FAILED', 'DROPPED']);

/**
 * An item's state as a menu button (the WAI-ARIA menu button pattern): the
 * button shows the state; Enter, Space, ArrowDown or a click opens the menu
 * with the current state focused; the arrows, Home, End and a state's first
 * letter move through it without recording anything; Enter, Space or a click
 * records the state chosen, once; Escape or Tab closes it and records
 * nothing. A native select in Chromium fires a change on every arrow key,
 * which recorded every state passed on the way.
 */
export function StateMenu(props: Props) {
  const [open, setOpen] = useState(false);
  const [active, setActiveState] = useState(0);
  // Keys can come faster than renders: each move starts from the last one, not from the render's.
  const at = useRef(0);
  const setActive = (index: number) => {
    at.current = index;
    setActiveState(index);
    // Focus moves with the key, not a frame later: a screen reader announces the item the key reached.
    (menu.current?.children[index] as HTMLElement | undefined)?.focus({ preventScroll: true });
  };
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLUListElement>(null);
  const entries = [...STATES, 'REASON'] as const;
  useLayoutEffect(() => {
    if (open) (menu.current?.children[active] as HTMLElement | undefined)?.focus({ preventScroll: true });
  }, [open, active]);
  const show = (index: number) => { setActive(index); setOpen(true); };
  // The whole menu in view when it opens (a pointer over it must not scroll it away, so items never scroll on focus).
  useLayoutEffect(() => { if (open) menu.current?.scrollIntoView({ block: 'nearest' }); }, [open]);
  const close = (refocus: boolean) => { setOpen(false); if (refocus) button.current?.focus(); };
  const pick = (index: number) => {
    close(true);
    const entry = entries[index];
    if (entry === 'REASON') props.withReason();
    else if (entry !== props.value) props.choose(entry);
  };
  // The x shortcut (shortcuts.tsx) marks the current row done through its menu: one choice, as a click on Done is.
  const choose = useRef(props.choose);
  choose.current = props.choose;
  useLayoutEffect(() => {
    const onChoose = (event: Event) => choose.current((event as CustomEvent<string>).detail);
    button.current?.addEventListener(CHOOSE_EVENT, onChoose);
    return () => button.current?.removeEventListener(CHOOSE_EVENT, onChoose);
  }, []);
  const current = Math.max(0, STATES.indexOf(props.value as (typeof STATES)[number]));
  const onMenuKey = (event: KeyboardEvent) => {
    const active = at.current;
    const last = entries.length - 1;
    const moves: Record<string, number> = { ArrowDown: (active + 1) % entries.length, ArrowUp: (active + last) % entries.length, Home: 0, End: last };
    if (event.key in moves) { event.preventDefault(); setActive(moves[event.key]); return; }
    if (event.key === 'Enter' || event.key === ' ') { event.preventDefault(); pick(active); return; }
    if (event.key === 'Escape') { event.preventDefault(); event.stopPropagation(); close(true); return; }
    if (event.key === 'Tab') { close(false); return; }
    if (event.key.length === 1 && !event.altKey && !event.ctrlKey && !event.metaKey) {
      const letter = event.key.toLowerCase();
      const found = entries.findIndex((entry, index) => index > active && entry !== 'REASON' && props.words[entry].toLowerCase().startsWith(letter));
      const wrapped = found >= 0 ? found : entries.findIndex((entry) => entry !== 'REASON' && props.words[entry].toLowerCase().startsWith(letter));
      if (wrapped >= 0) setActive(wrapped);
    }
  };
  return (
    <span class="state-menu">
      <button type="button" id={props.id} ref={button} data-state={props.value} data-done-word={props.words.DONE} class={`state-button state ${props.value}`} aria-haspopup="menu" aria-expanded={open}
        aria-controls={open ? `${props.id}-menu` : undefined} aria-label={`${props.label}: ${props.words[props.value]}`}
        onClick={() => (open ? close(true) : show(current))}
        onKeyDown={(event) => {
          if (event.altKey) return;
          if (event.key === 'ArrowDown' || event.key === 'ArrowUp') { event.preventDefault(); show(event.key === 'ArrowDown' ? current : entries.length - 1); }
        }}>
        <span class="state-word">{props.words[props.value]}</span> <span aria-hidden="true">▾</span>
      </button>
      {open && (
        <ul role="menu" id={`${props.id}-menu`} ref={menu} aria-label={`State of “${props.label}”`} class="menu" onKeyDown={onMenuKey}
          onFocusOut={(event) => { if (!menu.current?.contains(event.relatedTarget as Node | null) && event.relatedTarget !== button.current) setOpen(false); }}>
          {entries.map((entry, index) => entry === 'REASON' ? (
            <li role="menuitem" tabIndex={-1} class="menu-reason" onClick={() => pick(index)} onMouseEnter={() => setActive(index)}>With a reason…</li>
          ) : (
            <li role="menuitemradio" aria-checked={entry === props.value} tabIndex={-1} class={`state-choice ${entry}`} data-state={entry} onClick={() => pick(index)} onMouseEnter={() => setActive(index)}>
              {props.words[entry]}{SAYS_WHY.has(entry) ? '…' : ''}
            </li>
          ))}
        </ul>
      )}
    </span>
  );
}
