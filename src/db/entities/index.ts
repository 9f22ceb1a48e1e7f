import { ClaimEntity, ItemDependencyEntity } from './claim.entity.js';
import { CommentEntity } from './comment.entity.js';
import { ItemLinkEntity } from './item-link.entity.js';
import { ItemEntity } from './item.entity.js';
import { LoggedChangeEntity } from './logged-change.entity.js';
import { MemoryEntity } from './memory.entity.js';
import { SessionDomainEntity, SessionEntity, SessionKeyEntity, SessionNameWordEntity } from './session.entity.js';
import { IdempotencyKeyEntity } from './idempotency-key.entity.js';
import { SettingEntity } from './setting.entity.js';
import { TaskEventEntity } from './task-event.entity.js';
import { TaskNoteEntity, TaskNoteItemEntity } from './task-note.entity.js';
import { WebhookDeliveryEntity, WebhookEntity } from './webhook.entity.js';

export {
  ClaimEntity, CommentEntity, IdempotencyKeyEntity, ItemDependencyEntity, ItemEntity, ItemLinkEntity, LoggedChangeEntity, MemoryEntity, SessionDomainEntity,
  SessionEntity, SessionKeyEntity, SessionNameWordEntity, SettingEntity, TaskEventEntity, TaskNoteEntity, TaskNoteItemEntity, WebhookDeliveryEntity, WebhookEntity,
};

export const ENTITIES = [
  MemoryEntity, ItemEntity, TaskEventEntity, CommentEntity, TaskNoteEntity, TaskNoteItemEntity,
  ItemLinkEntity, SessionEntity, SessionDomainEntity, SessionKeyEntity, SettingEntity, IdempotencyKeyEntity,
  LoggedChangeEntity, WebhookEntity, WebhookDeliveryEntity, ClaimEntity, ItemDependencyEntity, SessionNameWordEntity,
];
