import { ClaimEntity, ItemDependencyEntity } from './claim.entity.js';
import { CommentEntity } from './comment.entity.js';
import { ItemLinkEntity } from './item-link.entity.js';
import { ItemEntity } from './item.entity.js';
import { LoggedChangeEntity } from './logged-change.entity.js';
import { MemoryEntity } from './memory.entity.js';
import { SessionDomainEntity, SessionEntity } from './session.entity.js';
import { IdempotencyKeyEntity, SettingEntity } from './setting.entity.js';
import { TaskEventEntity } from './task-event.entity.js';
import { TaskNoteEntity, TaskNoteItemEntity } from './task-note.entity.js';

export {
  ClaimEntity, CommentEntity, ItemDependencyEntity, IdempotencyKeyEntity, ItemEntity, ItemLinkEntity, LoggedChangeEntity, MemoryEntity, SessionDomainEntity,
  SessionEntity, SettingEntity, TaskEventEntity, TaskNoteEntity, TaskNoteItemEntity,
};

export const ENTITIES = [
  MemoryEntity, ItemEntity, TaskEventEntity, CommentEntity, TaskNoteEntity, TaskNoteItemEntity,
  ItemLinkEntity, SessionEntity, SessionDomainEntity, SettingEntity, IdempotencyKeyEntity,
  LoggedChangeEntity, ClaimEntity, ItemDependencyEntity,
];
