import { getParseErrorMessage, normalizeObjectSchema, objectFromShape, safeParseAsync, type AnyObjectSchema } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import { toJsonSchemaCompat } from '@modelcontextprotocol/sdk/server/zod-json-schema-compat.js';
import { ErrorCode, McpError, type CallToolRequest, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { ToolContext } from './tool-context.js';

/** What a tool declares: the fields McpServer.registerTool takes, as raw zod shapes. */
export interface ToolConfig<Shape extends z.ZodRawShape> {
  title: string;
  description: string;
  inputSchema: Shape;
  outputSchema?: z.ZodRawShape;
}

/** A tool's work: the validated arguments, and the MCP session it runs for. */
export type ToolHandler<Shape extends z.ZodRawShape> = (args: z.output<z.ZodObject<Shape>>, ctx: ToolContext) => Promise<CallToolResult>;

/** What each tool set's register function is given: tools are declared once, their handlers take the session's context per call. */
export interface ToolRegistrar {
  registerTool<Shape extends z.ZodRawShape>(name: string, config: ToolConfig<Shape>, handler: ToolHandler<Shape>): void;
}

interface RegisteredTool {
  input: AnyObjectSchema;
  output?: AnyObjectSchema;
  handler: ToolHandler<z.ZodRawShape>;
}

/**
 * The tools of one tool-set selection, built once and shared by every MCP
 * session that asks for it: names, descriptions, zod validators and the
 * listed JSON Schemas live here, and a session brings only its ToolContext.
 * (McpServer binds each handler to one context when it is registered, so it
 * cannot be shared by sessions: each would build every tool again.)
 *
 * list() and call() answer as McpServer 1.32 does for tools registered
 * with registerTool (same listing, same "MCP error -32602: Input validation
 * error: ..." texts, same output check), so a client cannot tell them apart.
 */
export class ToolRegistry implements ToolRegistrar {
  private readonly tools = new Map<string, RegisteredTool>();
  private readonly listed: Tool[] = [];

  registerTool<Shape extends z.ZodRawShape>(name: string, config: ToolConfig<Shape>, handler: ToolHandler<Shape>): void {
    if (this.tools.has(name)) throw new Error(`Tool ${name} is already registered`);
    const input = objectFromShape(config.inputSchema);
    const output = config.outputSchema ? objectFromShape(config.outputSchema) : undefined;
    this.tools.set(name, { input, output, handler: handler as unknown as ToolHandler<z.ZodRawShape> });
    this.listed.push({
      name,
      title: config.title,
      description: config.description,
      inputSchema: toJsonSchemaCompat(normalizeObjectSchema(input)!, { strictUnions: true, pipeStrategy: 'input' }) as Tool['inputSchema'],
      execution: { taskSupport: 'forbidden' },
      ...(output ? { outputSchema: toJsonSchemaCompat(normalizeObjectSchema(output)!, { strictUnions: true, pipeStrategy: 'output' }) as Tool['outputSchema'] } : {}),
    });
  }

  /** tools/list: the same array for every session (nothing mutates it). */
  list(): { tools: Tool[] } {
    return { tools: this.listed };
  }

  /** tools/call for one session: a protocol-level refusal (unknown tool, bad arguments, bad output) is an isError result, as McpServer answers it. */
  async call(request: CallToolRequest, ctx: ToolContext): Promise<CallToolResult> {
    const { name, arguments: args } = request.params;
    try {
      const tool = this.tools.get(name);
      if (!tool) throw new McpError(ErrorCode.InvalidParams, `Tool ${name} not found`);
      const parsed = await safeParseAsync(tool.input, args ?? {});
      if (!parsed.success) {
        throw new McpError(ErrorCode.InvalidParams, `Input validation error: Invalid arguments for tool ${name}: ${getParseErrorMessage(parsed.error)}`);
      }
      const result = await tool.handler(parsed.data as never, ctx);
      // A task-augmented call is answered as it came back (the SDK's Server checks it), as McpServer does.
      if (!request.params.task) await checkOutput(tool, result, name);
      return result;
    } catch (error) {
      if (error instanceof McpError && error.code === ErrorCode.UrlElicitationRequired) throw error;
      return { content: [{ type: 'text', text: error instanceof Error ? error.message : String(error) }], isError: true };
    }
  }
}

async function checkOutput(tool: RegisteredTool, result: CallToolResult, name: string): Promise<void> {
  if (!tool.output || !('content' in result) || result.isError) return;
  if (!result.structuredContent) {
    throw new McpError(ErrorCode.InvalidParams, `Output validation error: Tool ${name} has an output schema but no structured content was provided`);
  }
  const parsed = await safeParseAsync(tool.output, result.structuredContent);
  if (!parsed.success) {
    throw new McpError(ErrorCode.InvalidParams, `Output validation error: Invalid structured content for tool ${name}: ${getParseErrorMessage(parsed.error)}`);
  }
}
