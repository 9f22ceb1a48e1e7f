import type { PlanPreset } from '../domain/plan-rules.js';
import { ToolRefusal } from './common/tool-result.js';

/** The four tool sets of api/mcp.md. */
export const TOOL_SETS = ['whole-list', 'step-ops', 'plan-and-finish', 'knowledge-base'] as const;
export type ToolSet = (typeof TOOL_SETS)[number];

const DEFAULT_TOOL_SETS: readonly ToolSet[] = ['whole-list', 'knowledge-base'];

/** Each plan set and the preset its sessions start from. */
const PLAN_SET_PRESETS: Partial<Record<ToolSet, PlanPreset>> = {
  'whole-list': 'WHOLE_LIST',
  'step-ops': 'STEP_OPS',
  'plan-and-finish': 'PLAN_AND_FINISH',
};

/** What a connection serves: its sets, and the preset of its one plan set (null with none). */
export interface ToolSelection {
  sets: ToolSet[];
  preset: PlanPreset | null;
}

/**
 * Parses "whole-list,knowledge-base" (the default when empty or absent).
 * Refused: an unknown name, or two plan sets (an MCP session is one agent
 * session, and a session's plan follows one set's rules).
 */
export function parseToolSets(raw: string | null | undefined): ToolSelection {
  const names = (raw ?? '').split(',').map((name) => name.trim()).filter(Boolean);
  const sets = names.length === 0 ? [...DEFAULT_TOOL_SETS] : [...new Set(names)];
  const unknown = sets.filter((name) => !(TOOL_SETS as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new ToolRefusal(`unknown tool set ${unknown.map((name) => `"${name}"`).join(', ')}. The sets are: ${TOOL_SETS.join(', ')}.`);
  }
  const planSets = sets.filter((name) => PLAN_SET_PRESETS[name as ToolSet]);
  if (planSets.length > 1) {
    throw new ToolRefusal(
      `an MCP session uses at most one plan set, and ${planSets.join(' and ')} were named. Pick one of whole-list, step-ops or plan-and-finish (knowledge-base goes with any).`,
    );
  }
  return { sets: sets as ToolSet[], preset: planSets.length ? PLAN_SET_PRESETS[planSets[0] as ToolSet]! : null };
}
