import { CommentEntity } from '../../db/entities/index.js';
import { checkedComment, insertComment } from './comment-store.js';
import { createOnce } from '../kernel/idempotency.js';
import type { SearchIndex } from '../search/search-index.js';
import { liveItem, loadTaskForChange, recordTaskChange } from '../task-aggregate/task-store.js';
import { taskViewIn, taskViewOf, type TaskView } from '../task-aggregate/task-view.js';
import type { Caller, Writer } from '../kernel/unit-of-work.js';

export interface AddCommentInput {
  taskId: string;
  body: string;
  item?: string | null;
  idempotencyKey?: string | null;
  /** Only a knowledge-base task will do (the knowledge-base tools): a session's plan is refused as no task. */
  tasksOnly?: boolean;
}

/** A comment just added, and its task with every item as the tools show it (what its [[#id]] tokens render against), from the same transaction. */
export interface CommentAdded {
  comment: CommentEntity;
  view: TaskView;
}

/** Comments on a task or one of its items. */
export class CommentService {
  constructor(
    private readonly writer: Writer,
    private readonly search: SearchIndex,
  ) {}

  async addComment(caller: Caller, input: AddCommentInput): Promise<CommentAdded> {
    return this.writer.run(caller, (uow) => createOnce(uow, 'addComment', input,
      async (stored) => {
        const comment = await uow.manager.findOneBy(CommentEntity, { id: Number(stored.id) });
        const view = comment && await taskViewIn(uow.manager, comment.taskId);
        return comment && view && { comment, view };
      },
      async () => {
        const aggregate = await loadTaskForChange(uow, input.taskId, null, undefined, undefined, { tasksOnly: input.tasksOnly });
        let itemId: number | null = null;
        if (input.item !== null && input.item !== undefined) {
          itemId = liveItem(aggregate, input.item, 'Comment on an item of this task, or leave item out to comment on the task.').id;
        }
        const comment = await insertComment(uow, aggregate, checkedComment(aggregate, input.body), itemId);
        await recordTaskChange(uow, this.search, aggregate, 'COMMENT_ADDED');
        return { result: { comment, view: taskViewOf(aggregate.task, aggregate.items) }, stored: { id: String(comment.id) } };
      }));
  }
}
