import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { Logger } from 'pino';
import type { Access } from '../services/kernel/unit-of-work.js';
import type { Services } from '../services/index.js';
import { registerKbCoordinationTools } from './knowledge-base/kb-coordination.tools.js';
import { registerKbMemoryTools } from './knowledge-base/kb-memories.tools.js';
import { withSessionId } from './knowledge-base/kb-session.js';
import { registerKbTaskTools } from './knowledge-base/kb-tasks.tools.js';
import { registerPlanAndFinishTools } from './plan-and-finish/plan-and-finish.tools.js';
import { registerStepOpsTools } from './step-ops/step-ops.tools.js';
import { clientSessionName } from '../domain/session-names.js';
import { SessionBinding, type SessionOptions, type ToolContext } from './common/tool-context.js';
import { SESSION_KEY_INSTRUCTION, ToolRegistry, type ToolRegistrar } from './common/tool-registry.js';
import { POLLED_WAKEUPS, type WorkWakeups } from '../services/claims/work-wakeups.js';
import type { ToolSelection, ToolSet } from './tool-sets.js';
import { registerWholeListTools } from './whole-list/whole-list.tools.js';

interface McpServerOptions {
  selection: ToolSelection;
  session: Omit<SessionOptions, 'preset'>;
  access: Access;
  /** Declare outputSchemas and answer structuredContent beside the text (?structured=1, --structured); text only otherwise. */
  structured?: boolean;
  /** What task_next's wait_seconds wakes on; without a change feed (stdio on its own file), a look every second. */
  wakeups?: WorkWakeups;
}

const INSTRUCTIONS =
  'taskbase keeps your plan for this chat and a knowledge base of tasks that outlive it. ' +
  'Refusals start with "Error: ", say what to send instead, and record nothing. ' +
  SESSION_KEY_INSTRUCTION;

const REGISTER: Record<ToolSet, (tools: ToolRegistrar) => void> = {
  'whole-list': registerWholeListTools,
  'step-ops': registerStepOpsTools,
  'plan-and-finish': registerPlanAndFinishTools,
  'knowledge-base': (registry) => {
    const tools = withSessionId(registry);
    registerKbTaskTools(tools);
    registerKbMemoryTools(tools);
    registerKbCoordinationTools(tools);
  },
};

/** One registry per selection, in the order its sets were named (a few dozen at most: four sets, one plan set each). */
const registries = new Map<string, ToolRegistry>();

/** The shared tools of a selection, built on first use. */
function toolRegistry(selection: ToolSelection): ToolRegistry {
  const key = selection.sets.join(',');
  let registry = registries.get(key);
  if (!registry) {
    registry = new ToolRegistry();
    for (const set of selection.sets) REGISTER[set](registry);
    registries.set(key, registry);
  }
  return registry;
}

/**
 * The SDK's Server builds an Ajv instance of its own unless given one; it is
 * used only to check what a client answers to server-sent requests
 * (elicitation), which taskbase never sends, so every session shares one.
 */
const jsonSchemaValidator = new AjvJsonSchemaValidator();

/**
 * One MCP server for one MCP session (one agent session), bound to one
 * taskbase session (joined when named, else found or started by its first
 * tool call).
 * It is the SDK's low-level Server with two handlers over the selection's
 * shared registry: all a session holds is its protocol state and its
 * ToolContext (the SessionBinding, access, principal).
 */
export function createMcpServer(services: Services, logger: Logger, options: McpServerOptions): { server: Server; session: SessionBinding } {
  const server = new Server(
    { name: 'taskbase', version: '0.1.0' },
    { capabilities: { tools: { listChanged: true } }, instructions: INSTRUCTIONS, jsonSchemaValidator },
  );
  const clientName = () => clientSessionName(server.getClientVersion());
  const session = new SessionBinding(services, { ...options.session, preset: options.selection.preset, clientName }, options.access);
  const structured = options.structured ?? false;
  const ctx: ToolContext = { services, session, access: options.access, logger, structured, wakeups: options.wakeups ?? POLLED_WAKEUPS };
  const registry = toolRegistry(options.selection);
  server.setRequestHandler(ListToolsRequestSchema, () => registry.list(structured));
  // The agent session is found or started by the first tool call, not at initialize, so that call's session_key can
  // still name the chat; a failure (an unknown --parent) is answered by the first tool that needs it.
  server.setRequestHandler(CallToolRequestSchema, (request) => registry.call(request, ctx));
  return { server, session };
}
