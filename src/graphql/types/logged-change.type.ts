import { Field, ID, Int, ObjectType } from 'type-graphql';
import { PageInfo } from './common.type.js';

@ObjectType({ simpleResolvers: true, description: 'One change, as recorded in the change log, in the order it was committed.' })
export class LoggedChange {
  @Field(() => ID, { description: 'Monotonic position in the log; also the cursor: pass it as changes(after:) to read what came after it. Opaque: keep it as it is.' })
  id: string;

  @Field({ description: 'When the change was committed.' })
  at: Date;

  @Field({ description: 'What happened, e.g. TASK_CREATED, ITEM_STATE, ITEMS_ADDED, NOTE_EDITED, PLAN_WRITTEN, SESSION_STARTED.' })
  action: string;

  @Field(() => ID, { nullable: true, description: 'The agent session that made the change; null for a caller without one (the dashboard, a CLI).' })
  madeBy: string | null;

  @Field(() => ID, { nullable: true, description: 'The task or note that changed (as MemoryChange.memoryId says it); null for a change to a session or the settings.' })
  memoryId: string | null;

  @Field(() => String, { nullable: true, description: "The changed task's or note's domain; null for a session's plan, a session or the settings." })
  domain: string | null;

  @Field(() => ID, { nullable: true, description: 'The task the change was about (a knowledge-base task or a plan), if any.' })
  taskId: string | null;

  @Field(() => ID, { nullable: true, description: 'The one item it changed, when it changed exactly one.' })
  itemId: string | null;

  @Field(() => ID, { nullable: true, description: 'The session it was about: the session itself, or the one whose plan changed.' })
  sessionId: string | null;
}

@ObjectType({ simpleResolvers: true, description: 'A page of the change feed, oldest first.' })
export class LoggedChangeConnection {
  @Field(() => [LoggedChange], { description: 'The changes of this page, in commit order.' })
  nodes: LoggedChange[];

  @Field(() => PageInfo, { description: 'hasNextPage while more changes are already recorded; endCursor is the last change\'s id (on an empty page, the after you sent): keep it and resume from it.' })
  pageInfo: PageInfo;
}

@ObjectType({ simpleResolvers: true, description: 'One POST to one webhook: the changes after its last delivered one (up to 100), in commit order; sent until the endpoint answers 2xx, or the webhook gives up.' })
export class WebhookDelivery {
  @Field(() => ID, { description: 'Sent as X-Taskbase-Delivery, the same on every attempt: a receiver drops a delivery it has already handled.' })
  id: string;

  @Field(() => LoggedChange, { nullable: true, description: 'The first change it carries (the body carries them all, whole); null when the changes were pruned from the change log before they could be sent (lastError says so).' })
  change: LoggedChange | null;

  @Field(() => Int, { description: 'How many changes it carries, in commit order (the body\'s changes array).' })
  changeCount: number;

  @Field(() => Int, { description: 'Attempts made so far.' })
  attempts: number;

  @Field(() => Int, { nullable: true, description: 'HTTP status of the last attempt; null when it could not connect (or timed out, or the target was refused).' })
  lastStatus: number | null;

  @Field(() => String, { nullable: true, description: 'Why the last attempt got no status (could not connect, no answer in time, a refused target); null once an attempt was answered. Never the receiver\'s body.' })
  lastError: string | null;

  @Field(() => Date, { nullable: true, description: 'When an attempt was answered 2xx; null until then.' })
  deliveredAt: Date | null;

  @Field(() => Date, { nullable: true, description: 'When the next attempt is due; null once delivered, or once its webhook gave up.' })
  nextAttemptAt: Date | null;
}

@ObjectType({ description: 'An outside endpoint that receives the changes of a domain (and those under it), each POSTed as JSON and signed (X-Taskbase-Signature).' })
export class Webhook {
  @Field(() => ID, { description: 'Its id, for reactivateWebhook and deleteWebhook.' })
  id: string;

  @Field({ description: 'Where deliveries are POSTed: whole only for the token that created it (and with auth off); every other token sees its scheme and host, e.g. https://hooks.example.com.' })
  url: string;

  @Field({ description: 'True when the calling token created it (always, with auth off): only then is url whole, and only that token may delete it.' })
  owned: boolean;

  @Field(() => String, { nullable: true, description: 'Domain prefix; null for every change.' })
  domain: string | null;

  @Field({ description: 'False once a delivery failed every attempt (TASKBASE_WEBHOOK_MAX_ATTEMPTS): nothing more is sent until reactivateWebhook resumes it from the last change it delivered.' })
  active: boolean;

  @Field({ description: 'When it was created: it receives the changes committed after this.' })
  createdAt: Date;
}
