import { useEffect, useState } from 'preact/hooks';
import { canWrite, gql } from '../api';
import { useQuery } from '../live';
import { useSignal } from '../signal';
import { Loading, Refusal, useAction, useTitle } from '../widgets';
import { MaintenanceTabs } from './maintenance';

const SETTINGS = '{ reminderSettings { enabled intervalMinutes } }';
const SETTINGS_LIVE = 'subscription { reminderSettingsChanged { enabled } }';
const UPDATE = 'mutation($enabled: Boolean, $intervalMinutes: Int) { updateReminderSettings(enabled: $enabled, intervalMinutes: $intervalMinutes) { enabled intervalMinutes } }';

/** Maintenance → Reminders: whether agents are asked to update their open tasks at the end of a turn, and how often at most. */
export function RemindersView() {
  const settings = useQuery(SETTINGS, {}, { query: SETTINGS_LIVE, variables: {} });
  useTitle('Reminders · maintenance');
  const writable = useSignal(canWrite);
  const [enabled, setEnabled] = useState(true);
  const [interval, setInterval] = useState('30');
  const [saved, setSaved] = useState(false);
  const [run, error, busy] = useAction();
  useEffect(() => {
    if (!settings.data) return;
    setEnabled(settings.data.reminderSettings.enabled);
    setInterval(String(settings.data.reminderSettings.intervalMinutes));
  }, [settings.data]);
  if (!settings.data) return <Loading error={settings.error} />;
  const save = async (event: Event) => {
    event.preventDefault();
    setSaved(false);
    if (await run(() => gql(UPDATE, { enabled, intervalMinutes: Number(interval) }))) setSaved(true);
  };
  return (
    <section class="main narrow" aria-labelledby="reminders-heading">
      <MaintenanceTabs current="reminders" />
      <h2 id="reminders-heading">Reminders</h2>
      <p>At the end of a turn, a session that named domains with open tasks is asked to update them — at most once per interval.</p>
      {/* noValidate: the server's own refusal, beside the button, says what to send instead. */}
      <form onSubmit={save} noValidate>
        <label class="inline"><input type="checkbox" checked={enabled} disabled={!writable} onChange={(event) => setEnabled(event.currentTarget.checked)} /> Send reminders</label>
        <label><span>Interval (minutes, 1–1440)</span>
          <input type="number" min={1} max={1440} step={1} value={interval} disabled={!writable} onInput={(event) => setInterval(event.currentTarget.value)} />
        </label>
        {writable && <button type="submit" disabled={busy}>Save reminder settings</button>}
        <Refusal error={error} />
        {saved && !error && <span role="status" class="ok">Saved.</span>}
      </form>
    </section>
  );
}
