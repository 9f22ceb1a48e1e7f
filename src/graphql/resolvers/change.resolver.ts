import { Arg, Ctx, FieldResolver, ID, Resolver, Root, Subscription } from 'type-graphql';
import type { ChangeEvent } from '../../services/kernel/changes/change-events.js';
import type { Context } from '../context.js';
import { clearLoaders } from '../loaders.js';
import { toMemory, toTask } from '../mappers.js';
import { toSession } from '../session-mappers.js';
import { TOPIC, type MemoryChangeEvent, type SessionChangeEvent } from '../subscriptions/topics.js';
import { MemoryChange, SessionChange, TaskChange } from '../types/change.type.js';
import { MemoryKindEnum } from '../types/enums.js';
import { Memory, Task } from '../types/memory.type.js';
import { ReminderSettings } from '../types/reminder.type.js';
import { Session } from '../types/session.type.js';
import { inScope } from '../../domain/domains.js';

/**
 * One subscription operation keeps one context for all its events; each event
 * is read as it now stands, so the loaders forget what the previous one read.
 */
function freshRead(ctx: Context): void {
  clearLoaders(ctx.loaders);
}

const common = (event: ChangeEvent) => ({ action: event.action, at: new Date(event.at), madeBy: event.madeBy });

/** Live changes over WebSocket (graphql-ws on /graphql), fed by every committed mutation, on this server or (PostgreSQL) any other. */
@Resolver()
export class ChangeResolver {
  @Subscription(() => TaskChange, {
    topics: TOPIC.TASK,
    topicId: ({ args }) => String(args.id),
    description: 'Each committed change to this task or plan: its fields, items, notes or comments. Ask for task in the payload, or refetch.',
  })
  taskChanged(@Root() event: MemoryChangeEvent, @Arg('id', () => ID, { description: 'The task (or plan) to watch.' }) _id: string, @Ctx() ctx: Context): TaskChange {
    freshRead(ctx);
    return { ...common(event), taskId: event.id };
  }

  @Subscription(() => MemoryChange, {
    topics: TOPIC.MEMORY,
    filter: ({ payload, args }: { payload: MemoryChangeEvent; args: { under?: string | null } }) =>
      payload.domain !== null && (!args.under || inScope(payload.domain, args.under)),
    description:
      'Each committed change to a task or note in a domain and below (every domain when under is null): created, edited, its items or notes. Sessions\' plans are not in a domain and are not sent here.',
  })
  domainChanged(
    @Root() event: MemoryChangeEvent,
    @Ctx() ctx: Context,
    @Arg('under', () => String, { nullable: true, description: 'Scope, e.g. "acme/checkout" (covers "acme/checkout/billing"); every domain when null.' }) _under?: string | null,
  ): MemoryChange {
    freshRead(ctx);
    return { ...common(event), memoryId: event.id, kind: event.kind as MemoryKindEnum, domain: event.domain };
  }

  @Subscription(() => SessionChange, {
    topics: TOPIC.SESSION,
    filter: ({ payload, args }: { payload: SessionChangeEvent; args: { id?: string | null } }) =>
      !args.id || payload.id === args.id || payload.parentId === args.id,
    description: 'Each committed change to a session or one of its helpers (every session when id is null): started, its plan written or changed, a turn, its rules, finished, reminded.',
  })
  sessionChanged(
    @Root() event: SessionChangeEvent,
    @Ctx() ctx: Context,
    @Arg('id', () => ID, { nullable: true, description: 'The session to watch (its helpers included); every session when null.' }) _id?: string | null,
  ): SessionChange {
    freshRead(ctx);
    return { ...common(event), sessionId: event.id, parentId: event.parentId };
  }

  @Subscription(() => ReminderSettings, { topics: TOPIC.SETTINGS, description: 'The reminder settings, each time they change.' })
  async reminderSettingsChanged(@Root() _event: ChangeEvent, @Ctx() ctx: Context): Promise<ReminderSettings> {
    return ctx.services.reminders.settings();
  }
}

@Resolver(() => TaskChange)
export class TaskChangeResolver {
  @FieldResolver(() => Task, { nullable: true, description: 'The task as it now stands.' })
  async task(@Root() change: TaskChange, @Ctx() ctx: Context): Promise<Task | null> {
    const row = await ctx.loaders.memory.load(change.taskId);
    return row && row.kind === 'TASK' ? toTask(row) : null;
  }
}

@Resolver(() => MemoryChange)
export class MemoryChangeResolver {
  @FieldResolver(() => Memory, { nullable: true, description: 'The task or note as it now stands.' })
  async memory(@Root() change: MemoryChange, @Ctx() ctx: Context): Promise<Memory | null> {
    const row = await ctx.loaders.memory.load(change.memoryId);
    return row ? toMemory(row) : null;
  }
}

@Resolver(() => SessionChange)
export class SessionChangeResolver {
  @FieldResolver(() => Session, { nullable: true, description: 'The session that changed, as it now stands.' })
  async session(@Root() change: SessionChange, @Ctx() ctx: Context): Promise<Session | null> {
    const row = await ctx.loaders.session.load(change.sessionId);
    return row ? toSession(row) : null;
  }
}
