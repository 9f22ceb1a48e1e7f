import { useState } from 'preact/hooks';
import { gql } from '../../api';
import { HashField } from '../../hash-field';
import { memo, sameProps } from '../../memo';
import { RefText } from '../../refs';
import { MoreText, Refusal, useAction, when } from '../../widgets';
import { ADD_COMMENT } from './documents';
import type { Comment } from '../../task-types';
import type { Choice } from './choices';

/** Re-rendered when its comments or the # choices change. */
export const Comments = memo(CommentsView, sameProps);

function CommentsView({ taskId, itemId, comments, choices, writable, label, onMenu }: { taskId: string; itemId?: string; comments: Comment[]; choices: Choice[]; writable: boolean; label: string; onMenu?: () => void }) {
  const [body, setBody] = useState('');
  const [run, error, busy] = useAction();
  const add = async (event: Event) => {
    event.preventDefault();
    if (await run(() => gql(ADD_COMMENT, { input: { taskId, item: itemId ?? null, body } }))) setBody('');
  };
  return (
    <section class="comments" aria-label={label}>
      {!itemId && <h3>Comments</h3>}
      <ul>
        {comments.map((comment) => (
          <li><MoreText><RefText text={comment.body} refs={comment.refs} taskId={taskId} /></MoreText> <span class="muted">· {when(comment.createdAt)}</span></li>
        ))}
      </ul>
      {writable && (
        <form onSubmit={add}>
          <HashField label={itemId ? `Comment on this item` : 'Comment on the task'} value={body} onInput={setBody} items={choices} id={`comment-${itemId ?? taskId}`} onMenu={onMenu} />
          <button type="submit" disabled={busy || !body.trim()}>Comment</button>
          <Refusal error={error} />
        </form>
      )}
    </section>
  );
}
