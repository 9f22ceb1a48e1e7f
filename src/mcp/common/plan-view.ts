import { NO_SESSION_MESSAGE } from '../../domain/plan-steps.js';
import type { PlanResult } from '../../services/sessions/plan.service.js';
import type { PlanView } from '../../services/task-views/task-view-reader.js';
import type { ToolContext } from './tool-context.js';
import { ToolRefusal } from './tool-result.js';

/** A session's plan as the plan tools show it (services.taskViews.plan). */
export type { PlanView };

/** The MCP session's taskbase session id, refused with the to-do tool's words when there is none. */
export async function requireSessionId(ctx: ToolContext): Promise<string> {
  const id = await ctx.session.id();
  if (!id) throw new ToolRefusal(NO_SESSION_MESSAGE);
  return id;
}

/** The session's plan now; null before the first write or after clearPlan. Refused when the session is not a started one. */
export async function readPlan(ctx: ToolContext, sessionId: string): Promise<PlanView | null> {
  const { session, plan } = await ctx.services.taskViews.plan(sessionId);
  if (!session) throw new ToolRefusal(NO_SESSION_MESSAGE);
  return plan;
}

/** The plan a write answered with (the service returns what it changed): no second read. Null after clearPlan. */
export function planAfter(result: PlanResult): PlanView | null {
  if (!result.plan) return null;
  return { session: result.session, all: result.items, steps: result.items.filter((item) => !item.deleted) };
}
