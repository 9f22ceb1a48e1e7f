import { describe, expect, it } from 'vitest';
import { DomainError } from './errors.js';
import { changeReminderSettings, DEFAULT_REMINDER_SETTINGS, remindedBefore, reminderText } from './reminders.js';

describe('changeReminderSettings', () => {
  it('keeps what is not sent and applies what is', () => {
    expect(changeReminderSettings(DEFAULT_REMINDER_SETTINGS, { enabled: false })).toEqual({ enabled: false, intervalMinutes: 30 });
    expect(changeReminderSettings(DEFAULT_REMINDER_SETTINGS, { intervalMinutes: 1440, enabled: null })).toEqual({ enabled: true, intervalMinutes: 1440 });
  });

  it.each([0, 1441, 2.5, -5])('refuses an interval of %s minutes', (minutes) => {
    expect(() => changeReminderSettings(DEFAULT_REMINDER_SETTINGS, { intervalMinutes: minutes })).toThrow(DomainError);
  });
});

describe('remindedBefore', () => {
  it('is the interval before now', () => {
    expect(remindedBefore(new Date('2026-11-30T12:00:00.000Z'), 30)).toBe('2026-11-30T11:30:00.000Z');
  });
});

describe('reminderText', () => {
  it('names each open task with its progress, what is in progress and what is stuck', () => {
    const text = reminderText(
      [
        { id: '7', title: 'Move billing webhooks', domain: 'acme/checkout/billing', done: 1, total: 3, inProgress: ['Cover refunds'], stuck: ['Key by event id (BLOCKED)'] },
        { id: '9', title: 'Fix the cart badge', domain: 'acme/checkout/ui', done: 0, total: 2, inProgress: [], stuck: [] },
      ],
      ['acme/checkout'],
    );
    expect(text).toContain('2 open tasks in acme/checkout');
    expect(text).toContain('- Move billing webhooks (task 7, acme/checkout/billing): 1/3 done; in progress: Cover refunds; stuck: Key by event id (BLOCKED)');
    expect(text).toContain('- Fix the cart badge (task 9, acme/checkout/ui): 0/2 done\n');
  });
});
