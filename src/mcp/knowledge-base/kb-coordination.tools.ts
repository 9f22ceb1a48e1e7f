import { taskClaimTool } from './tools/task-claim.js';
import { taskNextTool } from './tools/task-next.js';
import { taskReadyTool } from './tools/task-ready.js';
import type { ToolRegistrar } from '../common/tool-registry.js';
import { registerAll } from '../common/tool-definition.js';

/** knowledge-base, the coordination tools: task_claim, task_next and task_ready (api/mcp.md), for several agents on one backlog. */
export function registerKbCoordinationTools(tools: ToolRegistrar): void {
  registerAll(tools, [taskClaimTool, taskNextTool, taskReadyTool]);
}
