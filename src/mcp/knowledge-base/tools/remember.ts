import { z } from 'zod';
import { callerOf, requireWrite } from '../../common/tool-context.js';
import { answer } from '../../common/tool-result.js';
import { run } from '../kb-memories.parts.js';
import { defineTool } from '../../common/tool-definition.js';

export const rememberTool = defineTool(
  'remember',
  {
    title: 'Remember a note',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    description: 'Keep a note (a plain memory) in a domain, for later sessions and search; link it to an item with task_item related.\nExample: {"title": "Provider retries webhooks for 72h", "body": "Events can arrive up to three days late.", "domain": "acme/checkout/billing"}',
    inputSchema: { title: z.string(), body: z.string(), domain: z.string() },
    outputSchema: { uid: z.string() },
  },
  async ({ title, body, domain }, ctx) =>
    run(ctx, async () => {
      requireWrite(ctx);
      const note = await ctx.services.notes.createNote(await callerOf(ctx), { title, body, domain });
      return answer(`Remembered note ${note.id} "${note.title}" in ${note.domain}.`, { uid: String(note.id) });
    }),
);
