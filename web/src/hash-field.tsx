import { useRef, useState } from 'preact/hooks';

export interface Choice { id: string; number: number | null; text: string }

/**
 * A free-text field where typing # opens a menu of the task's items:
 * filter as you type, arrow keys to choose, Enter (or a click) writes the
 * [[#id]] token in place of what was typed, Escape closes.
 */
export function HashField(props: {
  label: string; value: string; onInput: (value: string) => void; items: readonly Choice[]; rows?: number; id?: string; disabled?: boolean;
  /** Called when the menu opens while the task has items not loaded yet, so they can be offered too. */
  onMenu?: () => void;
}) {
  const ref = useRef<HTMLTextAreaElement>(null);
  const [menu, setMenu] = useState<{ start: number; query: string } | null>(null);
  const [active, setActive] = useState(0);
  const listId = `${props.id ?? props.label.replace(/\W+/g, '-')}-items`;
  const matches = menu
    ? props.items.filter((item) => item.text.toLowerCase().includes(menu.query.toLowerCase()) || String(item.number) === menu.query).slice(0, 8)
    : [];

  const update = (value: string, caret: number) => {
    props.onInput(value);
    const before = value.slice(0, caret);
    const at = before.lastIndexOf('#');
    if (at >= 0 && (at === 0 || /\s|\(/.test(before[at - 1])) && !/\s/.test(before.slice(at + 1)) && before.slice(at - 2, at) !== '[[') {
      if (!menu) props.onMenu?.();
      setMenu({ start: at, query: before.slice(at + 1) });
      setActive(0);
    } else setMenu(null);
  };
  const choose = (choice: Choice) => {
    const field = ref.current!;
    const end = field.selectionStart ?? field.value.length;
    const token = `[[#${choice.id}]]`;
    const value = field.value.slice(0, menu!.start) + token + field.value.slice(end);
    props.onInput(value);
    setMenu(null);
    requestAnimationFrame(() => {
      field.focus();
      const caret = menu!.start + token.length;
      field.setSelectionRange(caret, caret);
    });
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (!menu || !matches.length) return;
    if (event.key === 'ArrowDown') setActive((active + 1) % matches.length);
    else if (event.key === 'ArrowUp') setActive((active - 1 + matches.length) % matches.length);
    else if (event.key === 'Enter' || event.key === 'Tab') choose(matches[active]);
    else if (event.key === 'Escape') setMenu(null);
    else return;
    event.preventDefault();
  };
  return (
    <div class="hash-field">
      <label>
        <span>{props.label}</span>
        <textarea
          ref={ref}
          rows={props.rows ?? 2}
          value={props.value}
          disabled={props.disabled}
          // A textbox may not carry aria-expanded (that is a combobox's, and a textarea cannot be one): the menu is announced by its listbox and the active option.
          aria-controls={menu && matches.length ? listId : undefined}
          aria-autocomplete="list"
          aria-activedescendant={menu && matches.length ? `${listId}-${matches[active].id}` : undefined}
          onInput={(event) => update(event.currentTarget.value, event.currentTarget.selectionStart ?? 0)}
          onKeyDown={onKeyDown}
          onBlur={() => setTimeout(() => setMenu(null), 150)}
        />
      </label>
      {menu && matches.length > 0 && (
        <ul class="hash-menu" role="listbox" id={listId} aria-label="Items of this task">
          {matches.map((item, index) => (
            <li
              id={`${listId}-${item.id}`}
              role="option"
              aria-selected={index === active}
              class={index === active ? 'active' : ''}
              onMouseDown={(event) => { event.preventDefault(); choose(item); }}
            >
              #{item.number} {item.text}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
