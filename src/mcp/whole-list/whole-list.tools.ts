import { todoWriteTool } from './tools/todo-write.js';
import type { ToolRegistrar } from '../common/tool-registry.js';
import { registerAll } from '../common/tool-definition.js';

/** whole-list: todo_write, the list written whole (api/mcp.md). */
export function registerWholeListTools(tools: ToolRegistrar): void {
  registerAll(tools, [todoWriteTool]);
}
