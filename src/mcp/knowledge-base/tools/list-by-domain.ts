import { z } from 'zod';
import type { MemoryKind } from '../../../domain/memory-kind.js';
import { memoryEntries } from '../kb-read.js';
import { answer, ToolRefusal } from '../../common/tool-result.js';
import { ENTRY, entries, named, run } from '../kb-memories.parts.js';
import { defineTool } from '../../common/tool-definition.js';

export const listByDomainTool = defineTool(
  'list_by_domain',
  {
    title: 'List a scope',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    description: 'List the memories of a domain and below, newest first (the first 50): type "task" or "note", status "active" or "archived" (closed tasks are archived).\nExample: {"domain": "acme/checkout", "type": "task", "status": "archived"}',
    inputSchema: {
      domain: z.string(), type: z.string().optional().describe('task or note'), status: z.string().optional().describe('active or archived'),
    },
    outputSchema: { memories: z.array(ENTRY), total: z.number().int() },
  },
  async ({ domain, type, status }, ctx) =>
    run(ctx, async () => {
      const kind = type === undefined ? null : ({ task: 'TASK', note: 'NOTE' } as Record<string, MemoryKind>)[type];
      if (kind === undefined) throw new ToolRefusal(`type must be task or note (got "${type}").`);
      const state = status === undefined ? null : ({ active: 'ACTIVE', archived: 'ARCHIVED' } as const)[status as 'active'];
      if (state === undefined) throw new ToolRefusal(`status must be active or archived (got "${status}").`);
      const page = await ctx.services.memoryReader.memories({ domain, kind, status: state, first: 50 });
      await named(ctx, domain);
      const list = await memoryEntries(ctx, page.nodes);
      const text = list.length ? list.map((entry) => entry.line).join('\n') : `(nothing in ${domain})`;
      return answer(`${page.totalCount} in ${domain}:\n${text}`, { memories: entries(list), total: page.totalCount });
    }),
);
