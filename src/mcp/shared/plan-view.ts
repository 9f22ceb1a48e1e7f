import type { ItemEntity, SessionEntity } from '../../db/entities/index.js';
import { NO_SESSION_MESSAGE } from '../../domain/plan-steps.js';
import type { ToolContext } from './tool-context.js';
import { ToolRefusal } from './tool-result.js';

/** A session's plan as the plan tools show it. */
export interface PlanView {
  session: SessionEntity;
  /** Every item of the plan, deleted ones too, in list order. */
  all: ItemEntity[];
  /** Live steps, in list order. */
  steps: ItemEntity[];
}

/** The MCP session's taskbase session id, refused with the to-do tool's words when there is none. */
export async function requireSessionId(ctx: ToolContext): Promise<string> {
  const id = await ctx.session.id();
  if (!id) throw new ToolRefusal(NO_SESSION_MESSAGE);
  return id;
}

/** The session's plan now; null before the first write or after clearPlan. Refused when the session is not a started one. */
export async function readPlan(ctx: ToolContext, sessionId: string): Promise<PlanView | null> {
  const [session] = await ctx.services.sessionReader.sessionsByIds([sessionId]);
  if (!session) throw new ToolRefusal(NO_SESSION_MESSAGE);
  const [planTaskId] = session.planTaskId === null ? [null] : await ctx.services.sessionReader.currentPlans([session.planTaskId]);
  if (planTaskId === null || planTaskId === undefined) return null;
  const [all] = await ctx.services.taskReader.itemsOfTasks([planTaskId]);
  return { session, all: all!, steps: all!.filter((item) => !item.deleted) };
}
