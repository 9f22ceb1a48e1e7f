import { useRef } from 'preact/hooks';
import { gql } from '../../api';
import { memo, sameProps } from '../../memo';
import type { Item, TaskNotes } from '../../task-types';
import { Refusal, useAction } from '../../widgets';
import { announce } from '../../shortcuts';
import { MOVE_ITEM } from './documents';
import type { ItemWithComments } from './types';
import { ItemRow } from './item-row';
import type { Choice } from './choices';

export interface ListProps { taskId: string; plan: boolean; notes: TaskNotes; items: ItemWithComments[]; choices: Choice[]; version: { current: number }; writable: boolean; focusItem: string | null; rules: { noteRequiredFor: string[]; planOnce: boolean } | null }
/** What a row asks of its list; the same object for the list's life, reading the list as it is now. */
export interface RowActions { move(item: Item, offset: -1 | 1): void; dragStart(item: Item): void; drop(item: Item): void; dragEnd(): void }

/** Skips a change that leaves every row, the rules and the briefs as they were (the task's version and counts moving on). */
export const Checklist = memo(ChecklistView, sameProps);

function ChecklistView(props: ListProps) {
  const [run, error] = useAction();
  const latest = useRef({ live: [] as Item[], dragging: null as string | null });
  latest.current.live = props.items.filter((item) => !item.deleted);
  const actions = useRef<RowActions>({
    move: (item, offset) => {
      const liveItems = latest.current.live;
      const index = liveItems.findIndex((other) => other.id === item.id);
      const target = index + offset;
      if (target < 0 || target >= liveItems.length) return;
      // After the item that will precede it: the one above the target place, or first.
      const after = offset === -1 ? (target === 0 ? null : liveItems[target - 1].id) : liveItems[target].id;
      void run(() => gql(MOVE_ITEM, { input: { id: item.id, after } })).then((moved) => {
        requestAnimationFrame(() => document.getElementById(`state-${item.id}`)?.focus());
        // A sighted person sees the row move; a screen reader hears where it went.
        if (moved) announce(`Moved “${item.text}” ${offset === -1 ? 'up' : 'down'} to place ${target + 1} of ${liveItems.length}`);
      });
    },
    dragStart: (item) => { latest.current.dragging = item.id; },
    dragEnd: () => { latest.current.dragging = null; },
    drop: (target) => {
      const { dragging, live: liveItems } = latest.current;
      latest.current.dragging = null;
      if (!dragging || dragging === target.id) return;
      const from = liveItems.findIndex((item) => item.id === dragging);
      const to = liveItems.findIndex((item) => item.id === target.id);
      const after = from < to ? target.id : to === 0 ? null : liveItems[to - 1].id;
      const text = liveItems[from]?.text ?? 'the item';
      void run(() => gql(MOVE_ITEM, { input: { id: dragging, after } })).then((moved) => moved && announce(`Moved “${text}” to place ${to + 1} of ${liveItems.length}`));
    },
  }).current;
  // A row's details show the task's briefs on it: rows re-render when the notes do, not on every change of the task.
  const notes = props.notes;
  return (
    <>
      <Refusal error={error} />
      <ol class="checklist" aria-label="Items">
        {props.items.map((item) => (
          <ItemRow key={item.id} item={item} taskId={props.taskId} plan={props.plan} notes={notes} choices={props.choices} version={props.version}
            writable={props.writable} focused={props.focusItem === item.id} rules={props.rules} actions={actions} />
        ))}
      </ol>
    </>
  );
}
