import { useMemo } from 'preact/hooks';
import { memo, sameProps } from '../../memo';
import { TaskNote } from './task-note';
import { AddNote } from './add-note';
import type { TaskNotes } from '../../task-types';
import type { Choice } from './choices';

/** Re-rendered when the notes or the # choices change. */
export const Notes = memo(NotesView, sameProps);

function NotesView({ taskId, notes, choices, writable, onMenu }: { taskId: string; notes: TaskNotes; choices: Choice[]; writable: boolean; onMenu?: () => void }) {
  const task = useMemo(() => ({ id: taskId, notes }), [taskId, notes]);
  const wholeTask = task.notes.nodes.filter((note) => note.items.length === 0);
  const briefs = task.notes.nodes.filter((note) => note.items.length > 0);
  return (
    <section aria-labelledby="notes-heading">
      <h3 id="notes-heading">Notes and briefs</h3>
      {task.notes.totalCount === 0 && <p class="muted">No notes on this task.</p>}
      {[...wholeTask, ...briefs].map((note) => <TaskNote note={note} task={task} choices={choices} writable={writable} />)}
      {writable && <AddNote taskId={task.id} choices={choices} onMenu={onMenu} />}
    </section>
  );
}
