import type { z } from 'zod';
import type { ToolConfig, ToolHandler, ToolRegistrar } from './tool-registry.js';

/**
 * One tool as its own file declares it: its name, what the client is told
 * (title, description, schemas, hints) and its handler. A set's register
 * function only lists its tools, in the order tools/list shows them.
 */
export interface ToolDefinition {
  readonly name: string;
  register(tools: ToolRegistrar): void;
}

/** Keeps the handler's argument types tied to the tool's own input schema. */
export function defineTool<Shape extends z.ZodRawShape>(name: string, config: ToolConfig<Shape>, handler: ToolHandler<Shape>): ToolDefinition {
  return { name, register: (tools) => tools.registerTool(name, config, handler) };
}

export function registerAll(tools: ToolRegistrar, definitions: readonly ToolDefinition[]): void {
  for (const definition of definitions) definition.register(tools);
}
