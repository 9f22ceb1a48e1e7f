import { planTasksTool } from './tools/plan-tasks.js';
import { updateTaskTool } from './tools/update-task.js';
import { addTaskTool } from './tools/add-task.js';
import { finishTool } from './tools/finish.js';
import type { ToolRegistrar } from '../common/tool-registry.js';
import { registerAll } from '../common/tool-definition.js';

/** plan-and-finish: plan_tasks, update_task, add_task and finish (api/mcp.md). */
export function registerPlanAndFinishTools(tools: ToolRegistrar): void {
  registerAll(tools, [planTasksTool, updateTaskTool, addTaskTool, finishTool]);
}
