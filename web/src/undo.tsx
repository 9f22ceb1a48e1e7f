import { useEffect, useState } from 'preact/hooks';
import { ApiError, gql } from './api';
import { signal, useSignal } from './signal';
import { useAction, Refusal } from './widgets';

const DELETE_ITEM = 'mutation($id: ID!) { deleteItem(id: $id) { id version } }';
const RESTORE_ITEM = 'mutation($id: ID!) { restoreItem(id: $id) { id deleted } }';
/** How long the toast offers Undo; the item stays restorable from "Show deleted items" after that. */
export const UNDO_SECONDS = 10;

interface Pending { key: number; itemId: string; text: string }
const pending = signal<Pending | null>(null);
let keys = 0;

/** The item control to focus once a row is gone: the next row's, else the one above, else the checklist's heading. */
function focusAfter(itemId: string): () => void {
  const row = document.getElementById(`item-${itemId}`);
  const live = (element: Element | null) => element && !element.classList.contains('deleted') ? element : null;
  let next: Element | null = row?.nextElementSibling ?? null;
  while (next && !live(next)) next = next.nextElementSibling;
  let previous: Element | null = row?.previousElementSibling ?? null;
  while (previous && !live(previous)) previous = previous.previousElementSibling;
  const target = next ?? previous;
  const id = target?.id.replace(/^item-/, '');
  return () => requestAnimationFrame(() => {
    const control = (id && document.getElementById(`state-${id}`)) || document.getElementById('checklist-heading');
    if (control instanceof HTMLElement) {
      if (control.tabIndex < 0 && !control.hasAttribute('tabindex')) control.tabIndex = -1;
      control.focus();
    }
  });
}

/**
 * Deletes an item and offers Undo for a few seconds. Focus moves to the
 * next item (or the one above), never lost to the page's top.
 */
export async function deleteWithUndo(item: { id: string; text: string }): Promise<void> {
  const refocus = focusAfter(item.id);
  await gql(DELETE_ITEM, { id: item.id });
  keys += 1;
  pending.set({ key: keys, itemId: item.id, text: item.text });
  refocus();
}

/** Brings a deleted item back (restoreItem): the Undo of a delete, and the Restore of a row under "Show deleted items". */
export async function restore(itemId: string): Promise<void> {
  await gql(RESTORE_ITEM, { id: itemId });
  requestAnimationFrame(() => requestAnimationFrame(() => document.getElementById(`state-${itemId}`)?.focus()));
}

/** A deleted row's way back. */
export function RestoreButton({ item }: { item: { id: string; text: string } }) {
  const [run, error, busy] = useAction();
  return (
    <>
      <button type="button" class="small" disabled={busy} onClick={() => void run(() => restore(item.id))} aria-label={`Restore “${item.text}”`}>Restore</button>
      <Refusal error={error} />
    </>
  );
}

/** "Deleted … Undo", at the foot of the window, announced politely; it goes UNDO_SECONDS after the pointer and focus leave it, or once used. */
export function UndoToast() {
  const shown = useSignal(pending);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // The countdown stands still while the pointer or focus is on the toast: a person reaching for Undo never loses it.
  const [held, setHeld] = useState(false);
  useEffect(() => {
    setError(null);
    if (!shown || held) return;
    const timer = setTimeout(() => { if (pending.get()?.key === shown.key) pending.set(null); }, UNDO_SECONDS * 1000);
    return () => clearTimeout(timer);
  }, [shown?.key, held]);
  useEffect(() => setHeld(false), [shown?.key]);
  const undo = async () => {
    if (!shown) return;
    setBusy(true);
    try {
      await restore(shown.itemId);
      pending.set(null);
    } catch (failure) {
      setError(failure instanceof ApiError ? failure.message : String(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="toast-region" role="status" aria-live="polite">
      {shown && (
        <div class="toast" onMouseEnter={() => setHeld(true)} onMouseLeave={() => setHeld(false)} onFocusIn={() => setHeld(true)} onFocusOut={() => setHeld(false)}>
          <span>Deleted “{shown.text}”.</span>{' '}
          <button type="button" onClick={() => void undo()} disabled={busy}>Undo</button>{' '}
          <button type="button" class="link small" onClick={() => pending.set(null)} aria-label="Dismiss">Dismiss</button>
          {error && <p class="refusal">{error}</p>}
        </div>
      )}
    </div>
  );
}
