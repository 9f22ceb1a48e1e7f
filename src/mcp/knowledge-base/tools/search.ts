import { z } from 'zod';
import { memoryEntries } from '../kb-read.js';
import { answer } from '../../common/tool-result.js';
import { ENTRY, entries, named, run } from '../kb-memories.parts.js';
import { defineTool } from '../../common/tool-definition.js';

export const searchTool = defineTool(
  'search',
  {
    title: 'Search memories',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    description: 'Search notes and tasks (title, goal, item labels) by words, best first (the first 20); task notes are never returned. Any characters are safe.\nExample: {"query": "webhook idempotent", "domain": "acme/checkout"}',
    inputSchema: { query: z.string(), domain: z.string().optional() },
    outputSchema: { memories: z.array(ENTRY), total: z.number().int() },
  },
  async ({ query, domain }, ctx) =>
    run(ctx, async () => {
      const page = await ctx.services.memoryReader.search({ query, domain: domain ?? null, first: 20 });
      await named(ctx, domain);
      const list = await memoryEntries(ctx, page.nodes);
      return answer(list.length ? list.map((entry) => entry.line).join('\n') : `Nothing matches "${query}".`, { memories: entries(list), total: page.totalCount });
    }),
);
