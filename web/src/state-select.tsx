import { useRef, useState } from 'preact/hooks';
import { STATES } from './states';

interface Props {
  id: string;
  label: string;
  /** The state shown: the recorded one, or one waiting on a note. */
  value: string;
  words: Record<string, string>;
  /** Called once per choice the person makes, never for the states passed on the way to it. */
  choose(state: string): void;
}

/** Keys with which a closed select steps its value, firing a change for every step. */
const STEPPING_KEYS = new Set(['ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight', 'Home', 'End', 'PageUp', 'PageDown']);

/**
 * An item's state as a select that records only the state chosen. A closed
 * select in Chromium on Linux changes its value, and fires change, on every
 * arrow key: ArrowUp three times from Blocked would record Dropped, Done and
 * In progress, each one reaching history, the change feed, agents and
 * webhooks. So a state reached by stepping keys waits, shown as chosen, until
 * Enter or leaving the select records it (Escape puts the recorded one back);
 * a state picked from the open list (a click, or Enter in the list) is
 * recorded at once.
 */
export function StateSelect(props: Props) {
  const stepped = useRef(false);
  const [waiting, setWaiting] = useState<string | null>(null);
  const record = () => {
    if (waiting === null) return;
    setWaiting(null);
    if (waiting !== props.value) props.choose(waiting);
  };
  return (
    <select id={props.id} aria-label={props.label} value={waiting ?? props.value}
      title={waiting === null ? 'Alt+↑/↓ moves the item' : 'Enter records this state; Escape keeps the one recorded'}
      onKeyDown={(event) => {
        if (event.altKey) return;
        if (event.key === 'Enter' && waiting !== null) { event.preventDefault(); record(); return; }
        if (event.key === 'Escape' && waiting !== null) { event.preventDefault(); event.stopPropagation(); setWaiting(null); return; }
        if (STEPPING_KEYS.has(event.key)) {
          // The change this key makes, if any, fires before the timer does.
          stepped.current = true;
          setTimeout(() => { stepped.current = false; }, 0);
        }
      }}
      onChange={(event) => {
        const state = event.currentTarget.value;
        if (stepped.current) setWaiting(state);
        else props.choose(state);
      }}
      onBlur={record}>
      {STATES.map((state) => <option value={state}>{props.words[state]}</option>)}
    </select>
  );
}
