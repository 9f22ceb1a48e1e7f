import type { ComponentChildren } from 'preact';

export interface ItemRef { id: string; number: number | null; text: string; deleted: boolean }

const TOKEN = /\[\[#(\d+)\]\]/g;

/**
 * Free text with its [[#id]] tokens as links to the item, reading as the
 * item's current number and label ("[#3 Cover refunds]"), struck through
 * once the item is deleted. `refs` is what the server says each id names.
 */
export function RefText({ text, refs, taskId }: { text: string | null | undefined; refs: readonly ItemRef[]; taskId?: string }) {
  if (!text) return null;
  const byId = new Map(refs.map((ref) => [ref.id, ref]));
  const parts: ComponentChildren[] = [];
  let last = 0;
  for (const match of text.matchAll(TOKEN)) {
    parts.push(text.slice(last, match.index));
    const ref = byId.get(match[1]);
    const label = ref ? `[#${ref.number ?? '–'} ${ref.text}]` : `[#${match[1]}]`;
    const href = taskId ? `#/task/${taskId}?item=${match[1]}` : undefined;
    parts.push(
      ref?.deleted ? (
        <a class="ref deleted" href={href} title="deleted item"><s>{label}</s> <span class="sr">(deleted)</span></a>
      ) : (
        <a class="ref" href={href}>{label}</a>
      ),
    );
    last = match.index! + match[0].length;
  }
  parts.push(text.slice(last));
  return <span class="free-text">{parts}</span>;
}
