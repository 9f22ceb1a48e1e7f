import { useState } from 'preact/hooks';
import { gql } from '../../api';
import { HashField } from '../../hash-field';
import { RefText } from '../../refs';
import { MoreText, Refusal, useAction } from '../../widgets';
import { EDIT_NOTE } from './documents';
import type { TaskNote as TaskNoteShown } from '../../task-types';
import type { Choice } from './choices';

const BRIEF_FIELDS = [['goal', 'Goal'], ['context', 'Context'], ['steps', 'Steps'], ['pitfalls', 'Pitfalls'], ['doneWhen', 'Done when'], ['extraInfo', 'Extra info']] as const;

export function TaskNote({ note, task, choices, writable }: { note: TaskNoteShown; task: { id: string }; choices: Choice[]; writable: boolean }) {
  const [editing, setEditing] = useState(false);
  const [title, setTitle] = useState(note.title);
  const [body, setBody] = useState(note.body ?? '');
  const [brief, setBrief] = useState<Record<string, string>>({});
  const [run, error, busy] = useAction();
  const sections = note.brief;
  const start = () => {
    setTitle(note.title);
    setBody(note.body ?? '');
    setBrief(sections ? Object.fromEntries(BRIEF_FIELDS.map(([key]) => [key, sections[key] ?? ''])) : {});
    setEditing(true);
  };
  const save = async (event: Event) => {
    event.preventDefault();
    const input: Record<string, unknown> = { id: note.id, title };
    if (note.brief) {
      input.brief = {
        ...Object.fromEntries(BRIEF_FIELDS.map(([key]) => [key, brief[key]])),
        extraInfo: brief.extraInfo?.trim() ? brief.extraInfo : null,
        dependsOn: note.brief.dependsOn.map((dep) => ({ item: dep.item.id, reason: dep.reason })),
      };
    } else input.body = body;
    if (await run(() => gql(EDIT_NOTE, { input }))) setEditing(false);
  };
  const kind = note.brief ? `Brief on ${note.items.map((item) => `#${item.number ?? '–'}`).join(', ')}` : 'Note';
  return (
    <div class="task-note" id={`note-${note.id}`}>
      {editing ? (
        <form onSubmit={save} aria-label={`Edit ${note.title}`}>
          <label><span>Title</span><input value={title} onInput={(event) => setTitle(event.currentTarget.value)} /></label>
          {note.brief ? BRIEF_FIELDS.map(([key, label]) => (
            <HashField label={label} value={brief[key] ?? ''} onInput={(value) => setBrief({ ...brief, [key]: value })} items={choices} id={`${note.id}-${key}`} />
          )) : <HashField label="Body" value={body} onInput={setBody} items={choices} rows={4} id={`${note.id}-body`} />}
          <button type="submit" disabled={busy}>Save</button> <button type="button" onClick={() => setEditing(false)}>Cancel</button>
          <Refusal error={error} />
        </form>
      ) : (
        <details open={Boolean(note.brief)}>
          <summary><span class="muted">{kind}:</span> {note.title}</summary>
          {sections ? (
            <dl class="brief">
              {BRIEF_FIELDS.map(([key, label]) => sections[key] ? <><dt>{label}</dt><dd><RefText text={sections[key]} refs={note.refs} taskId={task.id} /></dd></> : null)}
              <dt>Depends on</dt>
              <dd>{sections.dependsOn.length === 0 ? 'none' : sections.dependsOn.map((dep) => (
                <span><RefText text={`[[#${dep.item.id}]]`} refs={[dep.item]} taskId={task.id} />{dep.reason ? ` (${dep.reason})` : ''} </span>
              ))}</dd>
            </dl>
          ) : <div class="body"><MoreText><RefText text={note.body} refs={note.refs} taskId={task.id} /></MoreText></div>}
          {writable && <button type="button" class="small" onClick={start}>Edit “{note.title}”</button>}
        </details>
      )}
    </div>
  );
}
