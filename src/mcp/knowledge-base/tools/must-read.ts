import { z } from 'zod';
import { listedSummaries } from '../kb-read.js';
import { answer, ToolRefusal } from '../../common/tool-result.js';
import { fittingCount } from '../../common/answer-budget.js';
import { MUST_READ_MAX } from '../../../services/memories/memory-reader.js';
import { named, run } from '../kb-memories.parts.js';
import { defineTool } from '../../common/tool-definition.js';

/** must_read shows at most this many tasks an answer (fewer when their lines would pass the page budget). */
const MUST_READ_PAGE = 50;

export const mustReadTool = defineTool(
  'must_read',
  {
    title: 'Open tasks of a scope',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    description: 'The open tasks of a domain and below, most recently updated first, each with its progress (done/total) and the items in progress. Read it when you start work in a domain; a long list comes in pages (offset).\nExample: {"domain": "acme/checkout", "type": "task"}',
    inputSchema: {
      domain: z.string(), type: z.string().optional().describe('task (the only kind it lists)'),
      offset: z.number().int().optional().describe('Tasks to skip: the offset the last page named (default 0).'),
    },
    outputSchema: {
      tasks: z.array(z.object({ uid: z.string(), title: z.string(), domain: z.string(), progress: z.string(), in_progress: z.array(z.string()) })),
      more: z.number().int().describe('Open tasks listed after this page.'),
      next_offset: z.number().int().nullable().describe('The offset of the next page; null on the last.'),
    },
  },
  async ({ domain, type, offset = 0 }, ctx) =>
    run(ctx, async () => {
      if (type !== undefined && type !== 'task') throw new ToolRefusal(`must_read lists tasks only: send type "task" or leave it out (got "${type}").`);
      if (offset < 0) throw new ToolRefusal(`offset is ${offset}; send 0 (the default) or the offset a page named.`);
      const rows = await ctx.services.memoryReader.mustRead(domain);
      await named(ctx, domain);
      // Only the page's tasks are summarised; the page ends at MUST_READ_PAGE tasks or at the answer budget, whichever comes first.
      const candidates = await listedSummaries(ctx, rows.slice(offset, offset + MUST_READ_PAGE));
      const allLines = candidates.map((task) => {
        const doing = task.in_progress.map((item) => `\n    doing: ${item.text} (id ${item.id})`).join('');
        return `${task.uid} ${task.title} (${task.domain}) ${task.progress.done}/${task.progress.total}${doing}`;
      });
      const shown = fittingCount(allLines);
      const tasks = candidates.slice(0, shown);
      const nextOffset = offset + shown;
      const more = Math.max(0, rows.length - nextOffset);
      // mustRead lists the MUST_READ_MAX most recently updated: at the cap, older open tasks exist beyond the list.
      const capped = rows.length >= MUST_READ_MAX ? ` (must_read lists the ${MUST_READ_MAX} most recently updated; older open tasks may exist: name a narrower domain to see them)` : '';
      const rest = more
        ? `\n${more} more: must_read with offset ${nextOffset}.${capped}`
        : offset > 0 || capped ? `\nNo more after these.${capped}` : '';
      let text: string;
      if (tasks.length) text = `Open tasks in ${domain}${offset || more ? `, ${offset + 1}-${nextOffset} of ${rows.length}` : ''}:\n${allLines.slice(0, shown).join('\n')}${rest}`;
      else if (rows.length) text = `No open tasks past offset ${offset} in ${domain}: there are ${rows.length}. Send an offset below ${rows.length}, or leave it out.`;
      else text = `No open tasks in ${domain}.`;
      return answer(text, {
        tasks: tasks.map((task) => ({
          uid: task.uid, title: task.title, domain: task.domain, progress: `${task.progress.done}/${task.progress.total}`,
          in_progress: task.in_progress.map((item) => item.text),
        })),
        more,
        next_offset: more ? nextOffset : null,
      });
    }),
);
