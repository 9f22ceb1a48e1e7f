import { todoTool } from './tools/todo.js';
import type { ToolRegistrar } from '../common/tool-registry.js';
import { registerAll } from '../common/tool-definition.js';

/** step-ops: todo, the plan worked step by step (api/mcp.md). */
export function registerStepOpsTools(tools: ToolRegistrar): void {
  registerAll(tools, [todoTool]);
}
