import { z } from 'zod';
import { MEMORY, describe, run } from '../kb-memories.parts.js';
import { defineTool } from '../../common/tool-definition.js';

export const getMemoryTool = defineTool(
  'get_memory',
  {
    title: 'Read a memory',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    description: 'Read a memory by uid: for a task, its goal, state, status and counts, and the items that have notes, comments or linked memories (read them with task_read); for a note, its body.\nExample: {"uid": "12"}',
    inputSchema: { uid: z.string() },
    outputSchema: MEMORY.shape,
  },
  async ({ uid }, ctx) => run(ctx, () => describe(ctx, uid)),
);
