import { taskTool } from './tools/task.js';
import { taskItemTool } from './tools/task-item.js';
import { taskAddTool } from './tools/task-add.js';
import { taskCommentTool } from './tools/task-comment.js';
import { taskNoteTool } from './tools/task-note.js';
import { taskReadTool } from './tools/task-read.js';
export { noteViews } from './kb-tasks.parts.js';
import type { ToolRegistrar } from '../common/tool-registry.js';
import { registerAll } from '../common/tool-definition.js';

/** knowledge-base, the task tools: task, task_item, task_add, task_comment, task_note, task_read (api/mcp.md). */
export function registerKbTaskTools(tools: ToolRegistrar): void {
  registerAll(tools, [taskTool, taskItemTool, taskAddTool, taskCommentTool, taskNoteTool, taskReadTool]);
}
