import { useLayoutEffect, useRef, useState } from 'preact/hooks';

export interface MenuAction {
  /** The visible words of the menu item; also its accessible name. */
  label: string;
  run(): void;
  danger?: boolean;
}

interface Props {
  id: string;
  /** The button's accessible name ("Actions for “<item>”"). */
  name: string;
  actions: MenuAction[];
}

/**
 * A row's actions behind one button (the WAI-ARIA menu button pattern, as the
 * state menu): Enter, Space, ArrowDown or a click opens it with the first item
 * focused, ArrowUp with the last; the arrows, Home and End move; Enter, Space
 * or a click runs the item once; Escape or Tab closes it and runs nothing.
 * One button instead of five keeps a row as clean as the read-only view.
 */
export function ActionMenu(props: Props) {
  const [open, setOpen] = useState(false);
  const at = useRef(0);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLUListElement>(null);
  const focusItem = (index: number) => {
    at.current = index;
    (menu.current?.children[index] as HTMLElement | undefined)?.focus({ preventScroll: true });
  };
  useLayoutEffect(() => {
    if (!open) return;
    menu.current?.scrollIntoView({ block: 'nearest' });
    focusItem(at.current);
  }, [open]);
  const show = (index: number) => { at.current = index; setOpen(true); };
  const close = (refocus: boolean) => { setOpen(false); if (refocus) button.current?.focus(); };
  const pick = (index: number) => { close(true); props.actions[index]?.run(); };
  const onMenuKey = (event: KeyboardEvent) => {
    const last = props.actions.length - 1;
    const moves: Record<string, number> = { ArrowDown: at.current === last ? 0 : at.current + 1, ArrowUp: at.current === 0 ? last : at.current - 1, Home: 0, End: last };
    if (event.key in moves) { event.preventDefault(); focusItem(moves[event.key]); return; }
    if (event.key === 'Enter' || event.key === ' ') { event.preventDefault(); pick(at.current); return; }
    if (event.key === 'Escape') { event.preventDefault(); event.stopPropagation(); close(true); return; }
    if (event.key === 'Tab') close(false);
  };
  return (
    <span class="action-menu">
      <button type="button" id={props.id} ref={button} class="small action-button" aria-haspopup="menu" aria-expanded={open} aria-controls={open ? `${props.id}-menu` : undefined}
        aria-label={props.name} title="Actions"
        onClick={() => (open ? close(true) : show(0))}
        onKeyDown={(event) => {
          if (event.altKey) return;
          if (event.key === 'ArrowDown' || event.key === 'ArrowUp') { event.preventDefault(); show(event.key === 'ArrowDown' ? 0 : props.actions.length - 1); }
        }}>
        <span aria-hidden="true">⋯</span>
      </button>
      {open && (
        <ul role="menu" id={`${props.id}-menu`} ref={menu} aria-label={props.name} class="menu" onKeyDown={onMenuKey}
          onFocusOut={(event) => { if (!menu.current?.contains(event.relatedTarget as Node | null) && event.relatedTarget !== button.current) setOpen(false); }}>
          {props.actions.map((action, index) => (
            <li role="menuitem" tabIndex={-1} class={action.danger ? 'danger' : undefined} onClick={() => pick(index)} onMouseEnter={() => focusItem(index)}>{action.label}</li>
          ))}
        </ul>
      )}
    </span>
  );
}
