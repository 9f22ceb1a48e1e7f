import { getMemoryTool } from './tools/get-memory.js';
import { editMemoryTool } from './tools/edit-memory.js';
import { rememberTool } from './tools/remember.js';
import { listByDomainTool } from './tools/list-by-domain.js';
import { mustReadTool } from './tools/must-read.js';
import { searchTool } from './tools/search.js';
import type { ToolRegistrar } from '../common/tool-registry.js';
import { registerAll } from '../common/tool-definition.js';

/** knowledge-base, the memory tools: get_memory, edit_memory, remember, list_by_domain, must_read, search (api/mcp.md). */
export function registerKbMemoryTools(tools: ToolRegistrar): void {
  registerAll(tools, [getMemoryTool, editMemoryTool, rememberTool, listByDomainTool, mustReadTool, searchTool]);
}
