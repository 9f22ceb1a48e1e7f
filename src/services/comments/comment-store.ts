import { refuse } from '../../domain/errors.js';
import { cleanFreeText } from '../../domain/text-rules.js';
import { checkFreeText } from '../../domain/refs.js';
import type { CommentEntity } from '../../db/entities/index.js';
import { num, selectRows } from '../kernel/statements.js';
import { citableIds, type TaskAggregate } from '../task-aggregate/task-store.js';
import type { UnitOfWork } from '../kernel/unit-of-work.js';

/**
 * A comment's body as stored: cleaned, non-empty, citing items of this task
 * only as [[#id]]. The one check for addComment and updateItem's comment.
 */
export function checkedComment(aggregate: TaskAggregate, rawBody: string): string {
  const body = cleanFreeText(rawBody, 'comment');
  if (body === '') throw refuse('COMMENT_EMPTY', {});
  checkFreeText(body, 'comment', citableIds(aggregate));
  return body;
}

/** Stores a checked comment on a task (itemId null) or one of its items; the caller records the task change. */
export async function insertComment(uow: UnitOfWork, aggregate: TaskAggregate, body: string, itemId: number | null): Promise<CommentEntity> {
  const comment = { taskId: aggregate.task.id, itemId, body, createdAt: uow.now };
  const [[id]] = await selectRows(uow.manager, INSERT_COMMENT, [comment.taskId, comment.itemId, comment.body, comment.createdAt]);
  return { id: num(id), ...comment };
}

const INSERT_COMMENT = `INSERT INTO "comments" ("taskId", "itemId", "body", "createdAt") VALUES (?, ?, ?, ?) RETURNING "id"`;
