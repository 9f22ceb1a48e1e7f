import { z } from 'zod';
import type { ToolRegistrar } from '../common/tool-registry.js';

/**
 * The knowledge-base tools as a stop hook needs them: the first answer of
 * a connection that started its own session says the id in its text, once,
 * with the hook line that uses it; with structured output on, every answer
 * made within a session also carries it (structuredContent.sessionId, as the
 * plan tools' do). A session named by --session / x-session-id or found by a chat key is
 * already known to the hook, so its answers say nothing more.
 */
export function withSessionId(tools: ToolRegistrar): ToolRegistrar {
  return {
    registerTool(name, config, handler) {
      const outputSchema = config.outputSchema && {
        ...config.outputSchema,
        sessionId: z.string().optional().describe('This chat\'s taskbase session (for taskbase remind --session in a stop hook).'),
      };
      tools.registerTool(name, { ...config, outputSchema }, async (args, ctx, steered) => {
        const result = await handler(args, ctx, steered);
        if (result.isError) return result;
        const sessionId = await ctx.session.id().catch(() => null);
        if (!sessionId) return result;
        const content = ctx.session.unnamed && ctx.session.firstAnswer()
          ? [...result.content, { type: 'text' as const, text: `\n(taskbase session ${sessionId}: a stop hook reminds it with taskbase remind --session ${sessionId})` }]
          : result.content;
        return { ...result, content, ...(result.structuredContent ? { structuredContent: { ...result.structuredContent, sessionId } } : {}) };
      });
    },
  };
}
