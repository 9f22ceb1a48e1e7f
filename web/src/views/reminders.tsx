import { useState } from 'preact/hooks';
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
  const settings = useQuery<{ reminderSettings: { enabled: boolean; intervalMinutes: number } }>(SETTINGS, {}, { query: SETTINGS_LIVE, variables: {} });
  useTitle('Reminders · maintenance');
  const writable = useSignal(canWrite);
  // What the person changed, empty until they do: the form shows the stored settings from its first frame (a default
  // shown until an effect caught up was read, and could be saved, as if it were stored) and follows a change made
  // elsewhere in every field the person has not edited. An unsaved edit is theirs until they save it: a remote change
  // (or a reread after a reconnect) never overwrites it.
  const [edited, setEdited] = useState<{ enabled?: boolean; interval?: string }>({});
  const [saved, setSaved] = useState(false);
  const [run, error, busy] = useAction();
  if (!settings.data) return <Loading error={settings.error} />;
  const enabled = edited.enabled ?? settings.data.reminderSettings.enabled;
  const interval = edited.interval ?? String(settings.data.reminderSettings.intervalMinutes);
  const setEnabled = (value: boolean) => setEdited((before) => ({ ...before, enabled: value }));
  const setInterval = (value: string) => setEdited((before) => ({ ...before, interval: value }));
  const save = async (event: Event) => {
    event.preventDefault();
    setSaved(false);
    if (await run(() => gql(UPDATE, { enabled, intervalMinutes: Number(interval) }))) { setSaved(true); setEdited({}); }
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
