import { DomainError } from '../domain/errors.js';
import { deletedItem } from '../domain/task-rules.js';
import { CommentEntity } from '../db/entities/index.js';
import { insertComment } from './comment-store.js';
import { findReplay, remember, replayed } from './idempotency.js';
import type { SearchIndex } from './search/search-index.js';
import { loadTaskForChange, recordTaskChange } from './task-store.js';
import type { Caller, Writer } from './unit-of-work.js';

export interface AddCommentInput {
  taskId: string;
  body: string;
  item?: string | null;
  idempotencyKey?: string | null;
}

/** Comments on a task or one of its items. */
export class CommentService {
  constructor(
    private readonly writer: Writer,
    private readonly search: SearchIndex,
  ) {}

  async addComment(caller: Caller, input: AddCommentInput): Promise<CommentEntity> {
    return this.writer.run(caller, async (uow) => {
      const replay = await findReplay(uow, 'addComment', input.idempotencyKey, input);
      if (replay) return replayed(await uow.manager.findOneBy(CommentEntity, { id: Number(replay.id) }), 'addComment', input.idempotencyKey);
      const aggregate = await loadTaskForChange(uow, input.taskId);
      let itemId: number | null = null;
      if (input.item !== null && input.item !== undefined) {
        const item = aggregate.items.find((candidate) => String(candidate.id) === String(input.item).trim());
        if (!item) throw new DomainError('NOT_FOUND', `Task ${aggregate.task.id} has no item "${input.item}". Comment on an item of this task, or leave item out to comment on the task.`);
        if (item.deleted) throw deletedItem(String(item.id), item.text);
        itemId = item.id;
      }
      const comment = await insertComment(uow, aggregate, input.body, itemId);
      await recordTaskChange(uow, this.search, aggregate, 'COMMENT_ADDED');
      await remember(uow, 'addComment', input.idempotencyKey, input, { id: String(comment.id) });
      return comment;
    });
  }
}
