import { Dependencies } from '../../claims';
import type { ItemWithComments } from './types';
import { LinkMemory } from './link-memory';
import { TaskNote } from './task-note';
import { Comments } from './comments';

export function ItemDetails({ item, taskId, notes, choices, writable }: { item: ItemWithComments; taskId: string; notes: any; choices: any[]; writable: boolean }) {
  const task = { id: taskId };
  const briefs = notes.nodes.filter((note: any) => note.items.some((briefed: any) => briefed.id === item.id));
  return (
    <div class="details">
      {item.related.length > 0 && (
        <p>Linked: {item.related.map((memory: any) => <a class="chip" href={memory.kind === 'TASK' ? `#/task/${memory.id}` : `#/domains/${memory.domain}?note=${memory.id}`}>{memory.title}</a>)}</p>
      )}
      <Dependencies item={item} taskId={taskId} />
      {briefs.map((note: any) => <TaskNote note={note} task={task} choices={choices} writable={writable} />)}
      {writable && !item.deleted && <LinkMemory item={item} />}
      <Comments taskId={task.id} itemId={item.id} comments={item.comments} choices={choices} writable={writable && !item.deleted} label={`Comments on “${item.text}”`} />
    </div>
  );
}
