/**
 * How the registry reads a tool's arguments before its zod schema judges
 * them: ids sent in the other JSON type read as meant, and a slip answered
 * in words that name the argument and what to send (tool-registry.ts).
 */
import type { z } from 'zod';

/** One argument that does not fit, as a tool set may word it (ToolConfig.slip). */
export interface ArgumentSlip {
  /** Where it is: ["todos", 1, "status"]. */
  path: (string | number)[];
  /** What was sent there; undefined when it is missing. */
  got: unknown;
  /** What the schema wants there, in words: "a string", "a whole number", "a list". */
  expected: string;
}

/** The zod 4 definition kinds the tools' schemas use. */
interface Def {
  type: string;
  innerType?: z.ZodType;
  element?: z.ZodType;
  shape?: Record<string, z.ZodType>;
}

function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

/** The schema under optional, nullable and default wrappers. */
function unwrapped(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (let def = defOf(current); def.innerType && ['optional', 'nullable', 'default', 'prefault'].includes(def.type); def = defOf(current)) {
    current = def.innerType;
  }
  return current;
}

const NUMERIC = /^\s*-?\d+(\.\d+)?\s*$/;

/**
 * The arguments with each value that is unambiguous in the other JSON type
 * read as the type declared: "3" where a number is wanted is 3, 12 where a
 * string is wanted is "12", "true"/"false" where a boolean is. Nothing else
 * changes, so the schema still judges every other slip.
 */
export function coerceArguments(schema: object, value: unknown): unknown {
  const inner = unwrapped(schema as z.ZodType);
  const def = defOf(inner);
  switch (def.type) {
    case 'number':
      return typeof value === 'string' && NUMERIC.test(value) ? Number(value) : value;
    case 'string':
      return typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
    case 'boolean':
      return value === 'true' ? true : value === 'false' ? false : value;
    case 'array':
      return Array.isArray(value) && def.element ? value.map((entry) => coerceArguments(def.element!, entry)) : value;
    case 'object': {
      if (value === null || typeof value !== 'object' || Array.isArray(value) || !def.shape) return value;
      const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
      for (const [key, field] of Object.entries(def.shape)) if (key in out) out[key] = coerceArguments(field, out[key]);
      return out;
    }
    default:
      return value;
  }
}

/** The schema at a path of the arguments, or null where the schema has none. */
function schemaAt(schema: z.ZodType, path: readonly (string | number)[]): z.ZodType | null {
  let current: z.ZodType | null = schema;
  for (const key of path) {
    if (!current) return null;
    const def = defOf(unwrapped(current));
    current = def.type === 'array' ? (def.element ?? null) : def.type === 'object' ? (def.shape?.[String(key)] ?? null) : null;
  }
  return current;
}

/** A field's own description: the one given beside optional() or on the field itself. */
function descriptionOf(schema: z.ZodType): string | null {
  return schema.description ?? unwrapped(schema).description ?? null;
}

function expectedWords(schema: z.ZodType | null): string {
  if (!schema) return 'nothing (it is not an argument of this tool)';
  const inner = unwrapped(schema);
  const def = defOf(inner);
  switch (def.type) {
    case 'string': return 'a string';
    case 'number': return (inner as unknown as { format?: string }).format?.includes('int') ? 'a whole number' : 'a number';
    case 'boolean': return 'true or false';
    case 'array': return 'a list';
    case 'object': return 'an object';
    default: return `a ${def.type}`;
  }
}

function valueAt(value: unknown, path: readonly (string | number)[]): unknown {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}

/** "todos[1].status" */
function pathText(path: readonly (string | number)[]): string {
  return path.map((key, index) => (typeof key === 'number' ? `[${key}]` : index === 0 ? key : `.${key}`)).join('');
}

/** What was sent, short: a long text or a big list is not echoed back whole. */
function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/**
 * The refusal for arguments the schema refused: the first slip, in the tool
 * set's words when it has some for it (`own`), else named by its path with
 * what to send there (the field's own description, which each set writes
 * for the agent), then that nothing was recorded and the tool's example.
 */
export function slipText(
  schema: object,
  error: unknown,
  sent: unknown,
  example: string | null,
  own?: (slip: ArgumentSlip) => string | null,
): string {
  const issue = (error as { issues?: { code: string; path: PropertyKey[]; message: string }[] }).issues?.[0] ?? { code: 'custom', path: [], message: '' };
  const path = issue.path.filter((key): key is string | number => typeof key !== 'symbol');
  const field = schemaAt(schema as z.ZodType, path);
  const got = valueAt(sent, path);
  const slip: ArgumentSlip = { path, got, expected: expectedWords(field) };
  const described = field ? descriptionOf(field) : null;
  const where = path.length ? `\`${pathText(path)}\`` : 'the arguments';
  const words =
    own?.(slip) ??
    (got === undefined
      ? `${where} is missing: send ${slip.expected}.${described ? ` ${described}` : ''}`
      : issue.code === 'too_small' || issue.code === 'too_big' || issue.code === 'invalid_format'
        ? `${where} does not fit: ${issue.message.replace(/^Invalid input: /, '')}.`
        : `${where} must be ${slip.expected}, not ${shown(got)}.${described ? ` ${described}` : ''}`);
  return `${words} Nothing was recorded.${example ? ` ${example}` : ''}`;
}
