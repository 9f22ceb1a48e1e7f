import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { gql } from '../../api';
import { ItemCoordination } from '../../claims';
import { Conflict, saveAtVersion } from '../../conflicts';
import { memo } from '../../memo';
import { SAYS_WHY, StateMenu } from '../../state-menu';
import { ActionMenu } from '../../action-menu';
import { TOGGLE_DETAILS_EVENT } from '../../shortcuts';
import { STATES, isStuck, noteKind } from '../../states';
import { useStateWords } from '../../state-words';
import { Refusal, useAction } from '../../widgets';
import { RestoreButton, deleteWithUndo } from '../../undo';
import { UPDATE_ITEM, CURRENT_ITEM } from './documents';
import type { ItemWithComments } from './types';
import type { ListProps, RowActions } from './checklist';
import { ItemDetails } from './item-details';
import type { TaskNotes } from '../../task-types';
import type { Choice } from './choices';

interface RowProps { item: ItemWithComments; taskId: string; plan: boolean; notes: TaskNotes; choices: Choice[]; version: { current: number }; writable: boolean; focused: boolean; rules: ListProps['rules']; actions: RowActions }

/** Re-rendered when its own item, its comments, the rules, or (while open) the briefs and # choices change. */
export const ItemRow = memo(ItemRowView, (before: RowProps, after: RowProps) =>
  before.item === after.item && before.writable === after.writable && before.focused === after.focused && before.rules === after.rules &&
  before.notes === after.notes && before.choices.length === after.choices.length);

function ItemRowView(props: RowProps) {
  const { item, writable } = props;
  // The state words of the set this plan follows (the knowledge base's for a domain's task).
  const STATE_LABEL = useStateWords();
  const focusItem = props.focused ? item.id : null;
  const [renaming, setRenaming] = useState<{ version: number; value: string } | null>(null);
  const [text, setText] = useState(item.text);
  const [open, setOpen] = useState(props.focused);
  // A state with its reason, asked inline before anything is sent: in the rule's words when the plan's rules need one, else optional
  // (Blocked, Failed and Dropped ask, so their row can say why; "With a reason…" asks for any state, picked in the form).
  const [asking, setAsking] = useState<{ state: string; version: number; from: string; pick?: boolean } | null>(null);
  const [note, setNote] = useState('');
  const [conflict, setConflict] = useState<{ what: 'state' | 'text'; mine: string; theirs: string; version: number } | null>(null);
  const [run, error, busy] = useAction();
  useEffect(() => { if (props.focused) setOpen(true); }, [props.focused]);
  const toggleDetails = () => setOpen((was) => !was);
  // The o shortcut (shortcuts.tsx) opens and closes the details through this event, now that they sit in the actions menu.
  const row = useRef<HTMLLIElement>(null);
  const toggle = useRef(toggleDetails);
  toggle.current = toggleDetails;
  useLayoutEffect(() => {
    const onToggle = () => toggle.current();
    row.current?.addEventListener(TOGGLE_DETAILS_EVENT, onToggle);
    return () => row.current?.removeEventListener(TOGGLE_DETAILS_EVENT, onToggle);
  }, []);
  const current = async () => {
    const now = (await gql<{ item: { text: string; state: string; task: { version: number } } }>(CURRENT_ITEM, { id: item.id })).item;
    return { version: now.task.version, value: now };
  };
  const sendState = (state: string, base: { version: number; from: string }, comment?: string) => void run(async () => {
    const outcome = await saveAtVersion({
      base: { version: base.version, value: base.from },
      send: (version) => gql(UPDATE_ITEM, { input: { id: item.id, state, expectedVersion: version, ...(comment ? { comment } : {}) } }),
      current: async () => { const now = await current(); return { version: now.version, value: now.value.state }; },
    });
    if (outcome.saved) { setAsking(null); setNote(''); setConflict(null); } else setConflict({ what: 'state', mine: state, theirs: outcome.theirs, version: outcome.version });
  });
  const setState = (state: string) => {
    setConflict(null);
    const base = { version: props.version.current, from: item.state };
    if (props.rules?.noteRequiredFor.includes(state) || SAYS_WHY.has(state)) setAsking({ state, ...base });
    else sendState(state, base);
  };
  const withReason = () => { setConflict(null); setAsking({ state: item.state, version: props.version.current, from: item.state, pick: true }); };
  // Focus goes to the form once, when it opens: to its state when one is picked there, else to the reason.
  const askingOpen = asking !== null;
  useEffect(() => {
    if (askingOpen) document.getElementById(`${asking?.pick ? 'reason-state' : 'reason'}-${item.id}`)?.focus();
  }, [askingOpen]);
  const required = asking ? Boolean(props.rules?.noteRequiredFor.includes(asking.state)) : false;
  const rename = (base: { version: number; value: string }) => void run(async () => {
    const outcome = await saveAtVersion({
      base,
      send: (version) => gql(UPDATE_ITEM, { input: { id: item.id, text, expectedVersion: version } }),
      current: async () => { const now = await current(); return { version: now.version, value: now.value.text }; },
    });
    if (outcome.saved) { setRenaming(null); setConflict(null); } else setConflict({ what: 'text', mine: text, theirs: outcome.theirs, version: outcome.version });
  });
  const onKeyDown = (event: KeyboardEvent) => {
    if (!writable || !event.altKey) return;
    if (event.key === 'ArrowUp') { event.preventDefault(); props.actions.move(item, -1); }
    if (event.key === 'ArrowDown') { event.preventDefault(); props.actions.move(item, 1); }
  };
  const dragProps = writable && !item.deleted ? {
    draggable: true,
    onDragStart: (event: DragEvent) => { props.actions.dragStart(item); event.dataTransfer?.setData('text/plain', item.id); },
    onDragOver: (event: DragEvent) => event.preventDefault(),
    onDrop: (event: DragEvent) => { event.preventDefault(); props.actions.drop(item); },
    onDragEnd: () => props.actions.dragEnd(),
  } : {};
  const stuck = isStuck(item.state) && !item.deleted;
  const commentCount = item.comments.length;
  return (
    <li id={`item-${item.id}`} ref={row} data-details={open ? 'open' : 'closed'} class={`item ${item.state} ${stuck ? 'stuck' : ''} ${item.deleted ? 'deleted' : ''} ${focusItem ? 'focused' : ''}`} onKeyDown={onKeyDown} {...dragProps}>
      <div class="row">
        {writable && !item.deleted && <span class="handle" aria-hidden="true" title="Drag to reorder">⠿</span>}
        <span class="num">{item.number ?? '–'}.</span>
        {writable && !item.deleted ? (
          <StateMenu id={`state-${item.id}`} label={item.text} value={asking?.state ?? item.state} words={STATE_LABEL} choose={setState} withReason={withReason} />
        ) : (
          <span class={`state ${item.state}`} aria-label={`${item.text}: ${STATE_LABEL[item.state]}`}>{STATE_LABEL[item.state]}</span>
        )}
        {renaming ? (
          <form class="rename" onSubmit={(event) => { event.preventDefault(); rename(renaming); }}>
            <label><span class="sr">New text for “{item.text}”</span>
              <input value={text} maxLength={props.plan ? 1000 : 80} onInput={(event) => setText(event.currentTarget.value)} onKeyDown={(event) => event.key === 'Escape' && setRenaming(null)} ref={(el) => el?.focus()} />
            </label>
            <button type="submit" disabled={busy}>Save</button> <button type="button" onClick={() => { setRenaming(null); setConflict(null); }}>Cancel</button>
          </form>
        ) : (
          <span class="text">{item.deleted ? <s>{item.text}</s> : item.text}{item.deleted && <span class="muted"> (deleted)</span>}</span>
        )}
        {stuck && <span class="stuck-label">Stuck — {STATE_LABEL[item.state].toLowerCase()}{item.note ? `: ${item.note}` : ' (no reason given)'}</span>}
        {item.state === 'DROPPED' && !item.deleted && <span class="note-line muted">Dropped — {item.note || '(no reason given)'}</span>}
        {item.note && !stuck && item.state !== 'DROPPED' && <span class="note-line muted">— {item.note}</span>}
        <ItemCoordination item={item} />
        <span class="actions">
          {commentCount > 0 && <span class="muted small" title={`${commentCount} comments`}>{commentCount} 💬</span>}
          <ActionMenu id={`actions-${item.id}`} name={`Actions for “${item.text}”`} actions={[
            { label: open ? 'Hide details' : `Details${commentCount ? ` · ${commentCount} comments` : ''}`, run: toggleDetails },
            ...(writable && !item.deleted && !renaming ? [
              { label: 'Rename', run: () => { setText(item.text); setRenaming({ version: props.version.current, value: item.text }); } },
              { label: 'Move up', run: () => props.actions.move(item, -1) },
              { label: 'Move down', run: () => props.actions.move(item, 1) },
              { label: 'Delete', danger: true, run: () => void run(() => deleteWithUndo(item)) },
            ] : []),
          ]} />
          {writable && item.deleted && <RestoreButton item={item} />}
        </span>
      </div>
      {asking && (
        <form class="rule-note" onSubmit={(event) => { event.preventDefault(); if (!required || note.trim()) sendState(asking.state, asking, note.trim() || undefined); }}
          onKeyDown={(event) => { if (event.key === 'Escape') { event.stopPropagation(); setAsking(null); setNote(''); document.getElementById(`state-${item.id}`)?.focus(); } }}>
          {asking.pick && (
            <label><span>New state of “{item.text}”</span>
              <select id={`reason-state-${item.id}`} value={asking.state} onChange={(event) => setAsking({ ...asking, state: event.currentTarget.value })}>
                {STATES.map((state) => <option value={state}>{STATE_LABEL[state]}</option>)}
              </select></label>
          )}
          <label><span>{!required
            ? `Why is “${item.text}” ${STATE_LABEL[asking.state]}? (optional; the row shows it)`
            : noteKind(asking.state) === 'validation'
            ? `This plan’s rules need a validation to set “${item.text}” ${STATE_LABEL[asking.state]}: what was checked?`
            : `This plan’s rules need a reason to set “${item.text}” ${STATE_LABEL[asking.state]}: why?`}</span>
            <textarea rows={2} value={note} onInput={(event) => setNote(event.currentTarget.value)} id={`reason-${item.id}`} />
          </label>
          <button type="submit" disabled={busy || (required && !note.trim()) || (asking.state === item.state && !note.trim())}>Set {STATE_LABEL[asking.state]}</button>{' '}
          <button type="button" onClick={() => { setAsking(null); setNote(''); }}>Cancel</button>
        </form>
      )}
      {conflict && (
        <Conflict what={conflict.what === 'state' ? `The state of “${item.text}”` : `The text of “${item.text}”`}
          mine={conflict.what === 'state' ? STATE_LABEL[conflict.mine] : conflict.mine}
          theirs={conflict.what === 'state' ? STATE_LABEL[conflict.theirs] : conflict.theirs}
          onMine={() => conflict.what === 'state'
            ? sendState(conflict.mine, { version: conflict.version, from: conflict.theirs }, asking ? note.trim() : undefined)
            : rename({ version: conflict.version, value: conflict.theirs })}
          onTheirs={() => { setConflict(null); setRenaming(null); setAsking(null); }} />
      )}
      <Refusal error={error} />
      {open && <ItemDetails item={item} taskId={props.taskId} notes={props.notes} choices={props.choices} writable={writable} />}
    </li>
  );
}
