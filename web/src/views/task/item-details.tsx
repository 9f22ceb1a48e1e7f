import { Dependencies } from '../../claims';
import type { ItemWithComments } from './types';
import { LinkMemory } from './link-memory';
import { TaskNote } from './task-note';
import { Comments } from './comments';
import type { TaskNotes } from '../../task-types';
import type { Choice } from './choices';

export function ItemDetails({ item, taskId, notes, choices, writable }: { item: ItemWithComments; taskId: string; notes: TaskNotes; choices: Choice[]; writable: boolean }) {
  const task = { id: taskId };
  const briefs = notes.nodes.filter((note) => note.items.some((briefed) => briefed.id === item.id));
  return (
    <div class="details">
      {item.related.length > 0 && (
        <p>Linked: {item.related.map((memory) => <a class="chip" href={memory.kind === 'TASK' ? `#/task/${memory.id}` : `#/domains/${memory.domain}?note=${memory.id}`}>{memory.title}</a>)}</p>
      )}
      <Dependencies item={item} taskId={taskId} />
      {briefs.map((note) => <TaskNote note={note} task={task} choices={choices} writable={writable} />)}
      {writable && !item.deleted && <LinkMemory item={item} />}
      <Comments taskId={task.id} itemId={item.id} comments={item.comments} choices={choices} writable={writable && !item.deleted} label={`Comments on “${item.text}”`} />
    </div>
  );
}
