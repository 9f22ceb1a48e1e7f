import { DomainError } from '../../domain/errors.js';
import { cleanFreeText } from '../../domain/text-rules.js';
import { checkFreeText } from '../../domain/refs.js';
import { CommentEntity } from '../../db/entities/index.js';
import type { TaskAggregate } from '../tasks/task-store.js';
import type { UnitOfWork } from '../kernel/unit-of-work.js';

/** Checks and stores a comment on a task (itemId null) or one of its items; the caller records the task change. */
export async function insertComment(uow: UnitOfWork, aggregate: TaskAggregate, rawBody: string, itemId: number | null): Promise<CommentEntity> {
  const body = cleanFreeText(rawBody, 'comment');
  if (body === '') throw new DomainError('EMPTY_TEXT', 'comment is empty once trimmed; send some text.');
  checkFreeText(body, 'comment', new Set(aggregate.items.map((item) => String(item.id))));
  const comment = uow.manager.create(CommentEntity, { taskId: aggregate.task.id, itemId, body, createdAt: uow.now });
  comment.id = Number((await uow.manager.insert(CommentEntity, comment)).identifiers[0].id);
  return comment;
}
