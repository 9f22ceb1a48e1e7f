/** The places under Maintenance, each a link (#/maintenance/<place>). */
export function MaintenanceTabs({ current }: { current: 'reminders' | 'webhooks' }) {
  return (
    <nav class="tabs" aria-label="Maintenance">
      <a href="#/maintenance/reminders" aria-current={current === 'reminders' ? 'page' : undefined}>Reminders</a>
      <a href="#/maintenance/webhooks" aria-current={current === 'webhooks' ? 'page' : undefined}>Webhooks</a>
    </nav>
  );
}
