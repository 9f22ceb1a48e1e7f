import type { SessionEntity } from '../db/entities/index.js';
import type { PlanResult } from '../services/sessions/plan.service.js';
import { toTask } from './mappers.js';
import { presetOfRules } from '../domain/plan-render.js';
import type { ItemStateEnum, PlanPresetEnum } from './types/enums.js';
import { PlanPayload, PlanRules, Session } from './types/session.type.js';

/** A session row to its API type; parent, children, plan and the other derived fields are field resolvers. */
export function toSession(row: SessionEntity): Session {
  return Object.assign(new Session(), {
    parentId: row.parentId,
    planTaskId: row.planTaskId,
    planStanding: row.planStanding,
    givenName: row.name ?? null,
    id: row.id,
    rules: Object.assign(new PlanRules(), { ...row.rules, noteRequiredFor: [...row.rules.noteRequiredFor] as ItemStateEnum[] }),
    // Sessions stored before the preset was kept read as the set their rules match best.
    preset: (row.preset ?? presetOfRules(row.rules)) as PlanPresetEnum,
    turn: row.turn,
    finishedAt: row.finishedAt ? new Date(row.finishedAt) : null,
    createdAt: new Date(row.createdAt),
    steeringSeenAt: row.steeringSeenAt ? new Date(row.steeringSeenAt) : null,
  });
}

export function toPlanPayload(result: PlanResult): PlanPayload {
  return Object.assign(new PlanPayload(), {
    message: result.message,
    plan: result.plan ? toTask(result.plan) : null,
    rendered: result.rendered,
  });
}
