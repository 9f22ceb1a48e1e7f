import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Logger } from 'pino';
import type { Access } from '../graphql/context.js';
import type { Services } from '../services/index.js';
import { registerKbMemoryTools } from './kb-memories.tools.js';
import { registerKbTaskTools } from './kb-tasks.tools.js';
import { registerPlanAndFinishTools } from './plan-and-finish.tools.js';
import { registerStepOpsTools } from './step-ops.tools.js';
import { SessionBinding, type SessionOptions, type ToolContext } from './tool-context.js';
import type { ToolSelection } from './tool-sets.js';
import { registerWholeListTools } from './whole-list.tools.js';

export interface McpServerOptions {
  selection: ToolSelection;
  session: Omit<SessionOptions, 'preset'>;
  access: Access;
}

const INSTRUCTIONS =
  'taskbase keeps your plan for this chat and a knowledge base of tasks that outlive it. ' +
  'Refusals start with "Error: ", say what to send instead, and record nothing.';

/**
 * One MCP server for one MCP session (one agent session): the tool sets the
 * connection asked for, over the services, bound to one taskbase session
 * (started when the MCP session initializes, or joined).
 */
export function createMcpServer(services: Services, logger: Logger, options: McpServerOptions): { server: McpServer; session: SessionBinding } {
  const server = new McpServer({ name: 'taskbase', version: '0.1.0' }, { instructions: INSTRUCTIONS });
  const session = new SessionBinding(services, { ...options.session, preset: options.selection.preset }, options.access);
  const ctx: ToolContext = { services, session, access: options.access, logger };
  const register = {
    'whole-list': registerWholeListTools,
    'step-ops': registerStepOpsTools,
    'plan-and-finish': registerPlanAndFinishTools,
    'knowledge-base': (target: McpServer, context: ToolContext) => {
      registerKbTaskTools(target, context);
      registerKbMemoryTools(target, context);
    },
  } as const;
  for (const set of options.selection.sets) register[set](server, ctx);
  // The agent session starts with the MCP session; a failure (an unknown --parent) is answered by the first tool that needs it.
  server.server.oninitialized = () => {
    session.id().catch((error: unknown) => logger.warn({ err: error }, 'MCP session could not start its taskbase session'));
  };
  return { server, session };
}
