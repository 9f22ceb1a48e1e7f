import { ApiError } from './api';

/** What a save based on an old version found: saved, or the field as someone else left it. */
export type SaveOutcome<T> = { saved: true } | { saved: false; theirs: T; version: number };

/**
 * Saves a person's edit of one field with the version it was based on, so an
 * agent's change in between is never silently replaced. A version is the
 * whole task's, and agents change other items all the time: when the field
 * itself still reads as it did when the person started, the edit is sent
 * again at the current version (still a compare-and-set); when the field
 * changed, the caller gets theirs to show beside what the person typed.
 */
export async function saveAtVersion<T>(edit: {
  base: { version: number; value: T };
  send(version: number): Promise<unknown>;
  current(): Promise<{ version: number; value: T }>;
  same?(a: T, b: T): boolean;
}): Promise<SaveOutcome<T>> {
  const same = edit.same ?? ((a: T, b: T) => a === b);
  let version = edit.base.version;
  for (let attempt = 0; attempt < 5; attempt += 1) {
    try {
      await edit.send(version);
      return { saved: true };
    } catch (failure) {
      if (!(failure instanceof ApiError) || failure.code !== 'VERSION_CONFLICT') throw failure;
      const now = await edit.current();
      if (!same(now.value, edit.base.value)) return { saved: false, theirs: now.value, version: now.version };
      version = now.version;
    }
  }
  throw new ApiError('The task keeps changing while this is saved. Wait a moment, then save again.', 'VERSION_CONFLICT');
}

/** Theirs beside yours after a conflict: apply yours again, or keep theirs. Neither is dropped until the person chooses. */
export function Conflict(props: { what: string; mine: string; theirs: string; onMine(): void; onTheirs(): void }) {
  return (
    <div class="conflict" role="alert">
      <p><strong>{props.what} was changed by someone else while you were editing.</strong> Both versions are below; choose one.</p>
      <div class="cols">
        <div><h4>Yours</h4><p class="body">{props.mine}</p></div>
        <div><h4>Changed meanwhile</h4><p class="body">{props.theirs}</p></div>
      </div>
      <button type="button" onClick={props.onMine}>Apply mine again</button>{' '}
      <button type="button" onClick={props.onTheirs}>Keep theirs</button>
    </div>
  );
}
