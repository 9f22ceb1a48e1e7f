import { getParseErrorMessage, normalizeObjectSchema, objectFromShape, safeParseAsync, type AnyObjectSchema } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import { toJsonSchemaCompat } from '@modelcontextprotocol/sdk/server/zod-json-schema-compat.js';
import { ErrorCode, McpError, type CallToolRequest, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { coerceArguments, slipText, type ArgumentSlip } from './tool-arguments.js';
import type { Steered } from '../../services/sessions/steering.service.js';
import type { ToolContext } from './tool-context.js';
import { answer, guarded, refusal } from './tool-result.js';

/**
 * The argument every tool of every set takes beside its own: the chat's
 * stable key, for a client that can say it only in a tool call (Claude
 * Code's MCP config is static; its hooks learn the chat's id). The registry
 * reads it and hands the tool the rest (SessionBinding.useKey binds it).
 * It is described once, in the server's instructions (SESSION_KEY_INSTRUCTION):
 * a description on every tool cost the knowledge-base set 2.6 KB of its
 * definitions, a fifth of what a model reads before its first call.
 */
const SESSION_KEY_SHAPE = {
  session_key: z.string().optional(),
};

/** What session_key is, said once for every tool (mcp-server.ts puts it in the instructions). */
export const SESSION_KEY_INSTRUCTION =
  "Every tool also takes session_key: this chat's stable key (for Claude Code, the session key its SessionStart hook gave you), so the list continues across reconnects.";

/**
 * What a client may assume about a tool (MCP tool annotations), so it can
 * approve reads on its own and ask before a call that destroys: every tool
 * declares all three. Every tool acts on taskbase's own records only, so
 * openWorldHint is false for all of them.
 */
interface ToolHints {
  /** Changes nothing. */
  readOnlyHint: boolean;
  /** May delete or overwrite what is recorded (a list replaced, an item deleted). */
  destructiveHint: boolean;
  /** The same call again changes nothing more. */
  idempotentHint: boolean;
}

/**
 * The field a structured answer carries beside the tool's own: the text
 * answer, word for word. A client that hands the model structuredContent
 * instead of the text (Claude Code, VS Code) then loses none of it.
 */
const ANSWER_SHAPE = {
  answer: z.string().describe('The text answer, word for word: what the agent reads on a connection without structured output.'),
};

/** What a tool declares: the fields McpServer.registerTool takes, as raw zod shapes, and its hints. */
export interface ToolConfig<Shape extends z.ZodRawShape> {
  title: string;
  description: string;
  annotations: ToolHints;
  inputSchema: Shape;
  outputSchema?: z.ZodRawShape;
  /** This set's words for an argument that does not fit the schema; null leaves it to the registry's. */
  slip?: (slip: ArgumentSlip) => string | null;
}

/**
 * A tool's work: the validated arguments, the MCP session it runs for, and
 * what this call was told first of others' changes (the registry puts the
 * lines before the answer; a tool that would undo a change reads them).
 */
export type ToolHandler<Shape extends z.ZodRawShape> = (args: z.output<z.ZodObject<Shape>>, ctx: ToolContext, steered: Steered) => Promise<CallToolResult>;

/** What each tool set's register function is given: tools are declared once, their handlers take the session's context per call. */
export interface ToolRegistrar {
  registerTool<Shape extends z.ZodRawShape>(name: string, config: ToolConfig<Shape>, handler: ToolHandler<Shape>): void;
}

interface RegisteredTool {
  input: AnyObjectSchema;
  /** The argument names the tool declares, session_key included. */
  names: string[];
  output?: AnyObjectSchema;
  handler: ToolHandler<z.ZodRawShape>;
  /** The "Example: ..." line of the description, repeated when an argument slips. */
  example: string | null;
  slip?: (slip: ArgumentSlip) => string | null;
}

/**
 * The tools of one tool-set selection, built once and shared by every MCP
 * session that asks for it: names, descriptions, zod validators and the
 * listed JSON Schemas live here, and a session brings only its ToolContext.
 * (McpServer binds each handler to one context when it is registered, so it
 * cannot be shared by sessions: each would build every tool again.)
 *
 * Answers are text only unless the connection asked for structured output
 * (ToolContext.structured): Claude Code and VS Code hand the model
 * JSON.stringify(structuredContent) instead of the text whenever a result
 * carries it, so a tool that declared an outputSchema would never have its
 * words read. With structured output on, tools/list declares each tool's
 * outputSchema and a result carries structuredContent too, its `answer`
 * field holding the text answer whole (ANSWER_SHAPE).
 *
 * list() answers as McpServer 1.32 does for tools registered with
 * registerTool, with each tool's annotations. call() is more forgiving than
 * McpServer: an id sent as a number where a string is declared, or as a
 * numeric string where a number is, is read as meant (clients such as the
 * MCP Inspector send them so), and any other slip, or an unknown tool, is an
 * "Error: ..." tool result that names the argument and what to send, as
 * every other refusal of the sets reads, never the SDK's -32602 zod text.
 * Every tool also takes session_key (SESSION_KEY_SHAPE), read here once for
 * all of them.
 */
export class ToolRegistry implements ToolRegistrar {
  private readonly tools = new Map<string, RegisteredTool>();
  /** tools/list for a connection without structured output: no outputSchema. */
  private readonly listed: Tool[] = [];
  /** tools/list with structured output: the same tools, each with its outputSchema. */
  private readonly listedStructured: Tool[] = [];

  registerTool<Shape extends z.ZodRawShape>(name: string, config: ToolConfig<Shape>, handler: ToolHandler<Shape>): void {
    if (this.tools.has(name)) throw new Error(`Tool ${name} is already registered`);
    const input = objectFromShape({ ...config.inputSchema, ...SESSION_KEY_SHAPE });
    const output = config.outputSchema ? objectFromShape({ ...ANSWER_SHAPE, ...config.outputSchema }) : undefined;
    const example = /^Example: .*$/m.exec(config.description)?.[0] ?? null;
    const names = [...Object.keys(config.inputSchema), ...Object.keys(SESSION_KEY_SHAPE)];
    this.tools.set(name, { input, names, output, handler: handler as unknown as ToolHandler<z.ZodRawShape>, example, slip: config.slip });
    const tool: Tool = {
      name,
      title: config.title,
      description: config.description,
      annotations: { title: config.title, ...config.annotations, openWorldHint: false },
      inputSchema: toJsonSchemaCompat(normalizeObjectSchema(input)!, { strictUnions: true, pipeStrategy: 'input' }) as Tool['inputSchema'],
      execution: { taskSupport: 'forbidden' },
    };
    this.listed.push(tool);
    this.listedStructured.push(output
      ? { ...tool, outputSchema: toJsonSchemaCompat(normalizeObjectSchema(output)!, { strictUnions: true, pipeStrategy: 'output' }) as Tool['outputSchema'] }
      : tool);
  }

  /** tools/list: the same array for every session of a kind (nothing mutates it). */
  list(structured: boolean): { tools: Tool[] } {
    return { tools: structured ? this.listedStructured : this.listed };
  }

  /** tools/call for one session: an unknown tool or arguments that do not fit are "Error: " results; a bad output is an isError result, as McpServer answers it. */
  async call(request: CallToolRequest, ctx: ToolContext): Promise<CallToolResult> {
    const { name, arguments: args } = request.params;
    try {
      const tool = this.tools.get(name);
      if (!tool) {
        const names = [...this.tools.keys()].join(', ');
        return refusal(`there is no tool "${name}" on this connection. Its tools are: ${names}.`);
      }
      // An argument the tool does not declare is a slip (a misspelt name), never silently dropped.
      const unknown = Object.keys(args ?? {}).filter((key) => !tool.names.includes(key));
      if (unknown.length) {
        const them = unknown.map((key) => `\`${key}\``).join(', ');
        return refusal(`${them} ${unknown.length === 1 ? 'is not an argument' : 'are not arguments'} of ${name}: its arguments are ${tool.names.join(', ')}. Nothing was recorded.${tool.example ? ` ${tool.example}` : ''}`);
      }
      const sent = coerceArguments(tool.input, args ?? {});
      const parsed = await safeParseAsync(tool.input, sent);
      if (!parsed.success) return refusal(slipText(tool.input, parsed.error, sent, tool.example, tool.slip));
      const { session_key: key, ...own } = parsed.data as { session_key?: string };
      if (key !== undefined) {
        const bound = await guarded(ctx.logger, async () => {
          await ctx.session.useKey(key);
          return answer('bound');
        });
        if (bound.isError) return bound;
      }
      const steered = await steeringOf(ctx);
      const result = shaped(withSteering(await tool.handler(own as never, ctx, steered), steered.lines), ctx.structured);
      // A task-augmented call is answered as it came back (the SDK's Server checks it), as McpServer does.
      if (ctx.structured && !request.params.task) await checkOutput(tool, result, name);
      return result;
    } catch (error) {
      if (error instanceof McpError && error.code === ErrorCode.UrlElicitationRequired) throw error;
      return { content: [{ type: 'text', text: error instanceof Error ? error.message : String(error) }], isError: true };
    }
  }
}

/**
 * What others changed in the session's plan or claimed items since its last
 * call (SteeringService), read before the tool runs, so the agent hears of a
 * person's steering whatever tool it calls next. A read-only connection
 * records nothing, so it is not told (it could not mark anything told). A
 * failed read costs the answer nothing: the changes are told by a later call.
 */
async function steeringOf(ctx: ToolContext): Promise<Steered> {
  const nothing = { lines: [], changes: [] };
  if (ctx.access === 'read') return nothing;
  try {
    const sessionId = await ctx.session.id();
    if (!sessionId) return nothing;
    return await ctx.services.steering.sinceLastCall({ sessionId, principal: ctx.session.principal });
  } catch (error) {
    ctx.logger.warn({ err: error }, 'steering read failed');
    return nothing;
  }
}

/** The answer with the steering lines first, each on its own line, before the tool's own words. */
function withSteering(result: CallToolResult, lines: readonly string[]): CallToolResult {
  if (lines.length === 0) return result;
  const [first, ...rest] = result.content;
  const head = lines.join('\n');
  if (first?.type === 'text') return { ...result, content: [{ ...first, text: `${head}\n${first.text}` }, ...rest] };
  return { ...result, content: [{ type: 'text', text: head }, ...result.content] };
}

/** A result as the connection takes it: text only, or with structuredContent that holds the text answer whole. */
function shaped(result: CallToolResult, structured: boolean): CallToolResult {
  if (!result.structuredContent) return result;
  const { structuredContent, ...text } = result;
  if (!structured) return text;
  const answer = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
  return { ...text, structuredContent: { answer, ...structuredContent } };
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
