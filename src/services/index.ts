import type { Database } from '../db/database.js';
import { CommitSignal } from './kernel/changes/change-events.js';
import { ClaimReader } from './claims/claim-reader.js';
import { ClaimExpiries } from './claims/claim-expiry.js';
import { ClaimService } from './claims/claim.service.js';
import { CommentService } from './comments/comment.service.js';
import { MemoryReader } from './memories/memory-reader.js';
import { NoteService } from './memories/note.service.js';
import { PlanService } from './sessions/plan.service.js';
import { ReminderService } from './reminders/reminder.service.js';
import type { SearchIndex } from './search/search-index.js';
import { PostgresSearchIndex } from './search/postgres-search-index.js';
import { SqliteSearchIndex } from './search/sqlite-search-index.js';
import { SessionDomains } from './sessions/session-domains.js';
import { TaskNoteReader } from './task-notes/task-note-reader.js';
import { CommentReader } from './comments/comment-reader.js';
import { LinkedMemoryReader } from './memories/linked-memory-reader.js';
import { SessionReader } from './sessions/session-reader.js';
import { SteeringService } from './sessions/steering.service.js';
import { SteeringReader } from './sessions/steering-reader.js';
import { ActivityReader } from './kernel/changes/activity-reader.js';
import { SessionService } from './sessions/session.service.js';
import { TaskNoteService } from './task-notes/task-note.service.js';
import { ItemDetailsReader } from './tasks/item-details-reader.js';
import { ItemFactsReader } from './tasks/item-facts-reader.js';
import { TaskReader } from './tasks/task-reader.js';
import { TaskService } from './tasks/task.service.js';
import { StuckItemsReader } from './task-views/stuck-items-reader.js';
import { TaskViewReader } from './task-views/task-view-reader.js';
import { Writer, type Clock } from './kernel/unit-of-work.js';
import { ChangeFeedReader } from './kernel/changes/change-feed-reader.js';
import { WebhookService } from './webhooks/webhook.service.js';

export interface ServiceOptions {
  clock?: Clock;
  /** Internal hosts and addresses webhooks may reach anyway (TASKBASE_WEBHOOK_ALLOWED_HOSTS); none unless given. */
  webhookAllowedHosts?: ReadonlySet<string>;
  /** Keep hot reads until anything commits (TASKBASE_KEEP_READS); on unless false. */
  keepReads?: boolean;
}

/** Every use case, built once per process over one database. Free of HTTP and GraphQL. */
export function createServices(db: Database, options: ServiceOptions = {}) {
  const clock = options.clock ?? (() => new Date());
  // This process's commits, for its own change feed to read the log at once.
  const commits = new CommitSignal();
  const writer = new Writer(db, commits, clock);
  const search: SearchIndex = db.kind === 'postgres' ? new PostgresSearchIndex() : new SqliteSearchIndex();
  const reader = () => db.reader;
  const linkedMemories = new LinkedMemoryReader(reader);
  const itemDetails = new ItemDetailsReader(reader, linkedMemories);
  const claimReader = new ClaimReader(reader);
  const sessionReader = new SessionReader(reader);
  const tasks = new TaskService(writer, search);
  return {
    db,
    commits,
    clock,
    tasks,
    taskReader: new TaskReader(reader),
    itemFacts: new ItemFactsReader(reader),
    taskNotes: new TaskNoteService(writer, search),
    comments: new CommentService(writer, search),
    notes: new NoteService(writer, search),
    memoryReader: new MemoryReader(reader, search, options.keepReads !== false),
    taskNoteReader: new TaskNoteReader(reader),
    commentReader: new CommentReader(reader),
    linkedMemories,
    itemDetails,
    sessionDomains: new SessionDomains(writer),
    sessions: new SessionService(writer),
    plans: new PlanService(writer, search),
    sessionReader,
    steering: new SteeringService(writer, reader),
    steeringReader: new SteeringReader(reader),
    reminders: new ReminderService(writer, reader, clock),
    changeFeed: new ChangeFeedReader(reader, db.kind),
    activity: new ActivityReader(reader),
    webhooks: new WebhookService(writer, reader, () => options.webhookAllowedHosts ?? new Set()),
    claims: new ClaimService(writer, tasks),
    claimReader,
    claimExpiries: new ClaimExpiries(writer, () => db.tail()),
    taskViews: new TaskViewReader(reader, itemDetails, claimReader, sessionReader),
    stuckItems: new StuckItemsReader(reader),
  };
}

export type Services = ReturnType<typeof createServices>;
