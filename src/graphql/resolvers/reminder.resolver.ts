import { Arg, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { Context } from '../context.js';
import { toTask } from '../mappers.js';
import { Reminder, ReminderSettings } from '../types/reminder.type.js';

/** End-of-turn reminders and their settings. */
@Resolver()
export class ReminderResolver {
  @Query(() => ReminderSettings, { description: 'Whether reminders are on, and their interval.' })
  async reminderSettings(@Ctx() ctx: Context): Promise<ReminderSettings> {
    return ctx.services.reminders.settings();
  }

  @Mutation(() => ReminderSettings, { nullable: true, description: 'Turns reminders on or off, or changes the interval (whole minutes, 1..1440). Omitted arguments stay as they are.' })
  async updateReminderSettings(
    @Ctx() ctx: Context,
    @Arg('enabled', () => Boolean, { nullable: true, description: 'On or off.' }) enabled?: boolean | null,
    @Arg('intervalMinutes', () => Int, { nullable: true, description: 'At most one reminder per session per this many minutes.' }) intervalMinutes?: number | null,
  ): Promise<ReminderSettings> {
    return ctx.services.reminders.updateSettings(ctx.caller, { enabled, intervalMinutes });
  }

  @Mutation(() => Reminder, {
    nullable: true,
    description:
      'The turn ends: returns the reminder when one is due, else null. Due when reminders are enabled, the session has named a domain, one of its open tasks is open, and the session was not reminded within intervalMinutes. Needs x-session-id (NO_SESSION otherwise).',
  })
  async endTurn(@Ctx() ctx: Context): Promise<Reminder | null> {
    const reminder = await ctx.services.reminders.endTurn(ctx.caller);
    return reminder && { text: reminder.text, tasks: reminder.tasks.map(toTask), domains: reminder.domains };
  }
}
