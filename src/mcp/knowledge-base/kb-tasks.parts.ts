import { z } from 'zod';
import type { TaskNoteEntity } from '../../db/entities/index.js';
import { taskNoteTexts } from '../../domain/briefs.js';
import type { LoadedTask } from './kb-read.js';
import { dependsOnText, kbRefusal, rendered, targetsOf } from './kb-text.js';
import type { ToolContext } from '../common/tool-context.js';
import { answer, guarded } from '../common/tool-result.js';

export const ITEM = z.object({ id: z.string(), number: z.number().int().nullable(), text: z.string(), state: z.string(), note: z.string().nullable(), deleted: z.boolean() });
export const TASK = z.object({
  uid: z.string(), title: z.string(), domain: z.string(), goal: z.string(), state: z.string(), status: z.string(),
  progress: z.object({ done: z.number(), total: z.number(), pending: z.number(), inProgress: z.number(), dropped: z.number(), blocked: z.number(), failed: z.number() }),
  in_progress: z.array(ITEM),
});
export const REF = z.object({ id: z.string(), number: z.number().int().nullable(), text: z.string(), deleted: z.boolean() });

export const run = (ctx: ToolContext, work: () => Promise<ReturnType<typeof answer>>) => guarded(ctx.logger, work, kbRefusal);

export const NOTE_SCHEMA = {
  id: z.string(), title: z.string(), items: z.array(z.string()), body: z.string().nullable(),
  brief: z.object({
    goal: z.string(), context: z.string(), steps: z.string(), pitfalls: z.string(), done_when: z.string(),
    depends_on: z.string().describe('Rendered: "[#1 Label] (reason)" one per line, or none.'), extra_info: z.string().nullable(),
  }).nullable(),
};

/**
 * Task notes as the tools show them: the body or each brief field rendered,
 * depends_on as the items now read. `itemIds`, the items each note is on,
 * when the caller has them (a write's answer); read otherwise.
 */
export async function noteViews(ctx: ToolContext, loaded: LoadedTask, notes: readonly TaskNoteEntity[], itemIds?: readonly (readonly number[])[]) {
  const targets = targetsOf(loaded.all);
  itemIds ??= await ctx.services.taskNoteReader.itemsOfNotes(notes.map((note) => note.id));
  return notes.map((note, index) => {
    const items = (itemIds[index] ?? []).map(String);
    const brief = note.brief;
    const r = (text: string) => rendered(text, targets);
    const data = {
      id: String(note.id), title: note.title, items, body: note.body === null ? null : r(note.body),
      brief: brief && {
        goal: r(brief.goal), context: r(brief.context), steps: r(brief.steps), pitfalls: r(brief.pitfalls), done_when: r(brief.doneWhen),
        depends_on: dependsOnText(brief.dependsOn, targets), extra_info: brief.extraInfo === null ? null : r(brief.extraInfo),
      },
    };
    const on = items.length ? ` on ${items.map((id) => r(`[[#${id}]]`)).join(', ')}` : ' on the whole task';
    const fields = data.brief
      ? `GOAL: ${data.brief.goal}\nCONTEXT: ${data.brief.context}\nSTEPS: ${data.brief.steps}\nPITFALLS: ${data.brief.pitfalls}\nDONE WHEN: ${data.brief.done_when}\nDEPENDS ON: ${data.brief.depends_on}` +
        (data.brief.extra_info ? `\nEXTRA INFO: ${data.brief.extra_info}` : '')
      : (data.body ?? '');
    return { text: `Note ${note.id} "${note.title}"${on}:\n${fields}`, data, texts: taskNoteTexts(note) };
  });
}
