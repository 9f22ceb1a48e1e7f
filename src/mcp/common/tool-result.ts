import { randomUUID } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { isDatabaseUnavailable, unavailableMessage } from '../../db/unavailable.js';
import { isDomainError, type DomainError } from '../../domain/errors.js';

/** An answer with text for the agent and, where it has data, structured content matching the tool's outputSchema. */
export function answer(text: string, structured?: Record<string, unknown>): CallToolResult {
  return structured ? { content: [{ type: 'text', text }], structuredContent: structured } : { content: [{ type: 'text', text }] };
}

/** A refusal: an isError result whose text starts with "Error: ". Nothing was recorded. */
export function refusal(message: string): CallToolResult {
  return { content: [{ type: 'text', text: `Error: ${message}` }], isError: true };
}

/** A refusal the tool makes itself, before any service is called (thrown, then turned into a refusal by guarded). */
export class ToolRefusal extends Error {}

/** Turns a domain refusal into the words of a tool set; null keeps the service's message. */
type Translate = (error: DomainError) => string | null | Promise<string | null>;

/**
 * Runs a tool handler: a domain refusal or a ToolRefusal becomes an "Error: "
 * result (the transaction rolled back, so nothing was recorded); anything
 * else is logged with an id and answered with that id only, never its
 * message, which may carry SQL or driver text.
 */
export async function guarded(logger: Logger, run: () => Promise<CallToolResult>, translate?: Translate): Promise<CallToolResult> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ToolRefusal) return refusal(error.message);
    if (isDomainError(error)) return refusal((translate && (await translate(error))) ?? error.message);
    if (isDatabaseUnavailable(error)) {
      logger.warn({ err: error }, 'database unavailable');
      return refusal(unavailableMessage(error));
    }
    const errorId = randomUUID();
    logger.error({ errorId, err: error }, 'MCP tool failed');
    return refusal(`the server failed on this call (id ${errorId}); nothing was recorded. Retry it, and quote the id if it fails again.`);
  }
}
