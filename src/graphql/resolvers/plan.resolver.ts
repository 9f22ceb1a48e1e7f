import { Arg, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import type { Context } from '../context.js';
import { TodoInput, UpdateStepInput } from '../inputs/session.inputs.js';
import { toPlanPayload } from '../session-mappers.js';
import { PlanPayload } from '../types/session.type.js';

/**
 * The calling session's plan (x-session-id): the whole-list writeTodos and
 * the step operations. Every one is refused with NO_SESSION without a started
 * session, and records one 'Update to-do list' row on the plan when accepted.
 */
@Resolver()
export class PlanResolver {
  @Mutation(() => PlanPayload, {
    nullable: true,
    description:
      'Whole-list replace: the list sent becomes the plan. Same text keeps its item id; an item left out is deleted; new text is a new item ' +
      '(marked added once a plan was recorded). Checks oneActive, maxTextLength, minItems and maxItems; [] records an empty list unless minItems > 0.',
  })
  async writeTodos(@Arg('todos', () => [TodoInput]) todos: TodoInput[], @Ctx() ctx: Context): Promise<PlanPayload> {
    return toPlanPayload(await ctx.services.plans.writeTodos(ctx.caller, todos));
  }

  @Mutation(() => PlanPayload, { nullable: true, description: 'Replaces the plan with fresh PENDING steps (destructive: discards statuses; the steps get new ids).' })
  async setPlan(@Arg('steps', () => [String]) steps: string[], @Ctx() ctx: Context): Promise<PlanPayload> {
    return toPlanPayload(await ctx.services.plans.setPlan(ctx.caller, steps));
  }

  @Mutation(() => PlanPayload, {
    nullable: true,
    description: 'Appends steps, keeping existing ones and their states; marks them added. NO_PLAN before any plan; PLAN_SIZE past maxItems.',
  })
  async addSteps(
    @Arg('steps', () => [String]) steps: string[],
    @Arg('after', () => ID, { nullable: true, description: 'Insert after this step (an item id); at the end when null.' }) after: string | null,
    @Ctx() ctx: Context,
  ): Promise<PlanPayload> {
    return toPlanPayload(await ctx.services.plans.addSteps(ctx.caller, steps, after));
  }

  @Mutation(() => PlanPayload, {
    nullable: true,
    description:
      'Moves one step into a state. NOTE_REQUIRED for a state in noteRequiredFor without a note; STEP_OUT_OF_RANGE gives the plan\'s length; ' +
      'TOO_MANY_IN_PROGRESS under oneActive when another step is in progress; FORBIDDEN for a step of another session\'s plan.',
  })
  async updateStep(@Arg('input', () => UpdateStepInput) input: UpdateStepInput, @Ctx() ctx: Context): Promise<PlanPayload> {
    return toPlanPayload(await ctx.services.plans.updateStep(ctx.caller, input));
  }

  @Mutation(() => PlanPayload, {
    nullable: true,
    description: 'Deletes every step: plan is null until the next writeTodos or setPlan, whose history continues on the same task. With no plan it changes nothing.',
  })
  async clearPlan(@Ctx() ctx: Context): Promise<PlanPayload> {
    return toPlanPayload(await ctx.services.plans.clearPlan(ctx.caller));
  }
}
