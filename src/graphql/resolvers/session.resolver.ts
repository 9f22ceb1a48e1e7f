import { Arg, Args, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { toConnection } from '../types/connection.type.js';
import { SessionConnection } from '../types/connections.type.js';
import { PageArgs } from '../inputs/page.args.js';
import { RECENT_SESSIONS_MAX } from '../../domain/session-limits.js';
import { DomainError } from '../../domain/errors.js';
import { readSessionSearch } from '../../domain/session-search.js';
import { statusLineForPeople } from '../../domain/plan-rules.js';
import { planTitle } from '../../domain/session-label.js';
import type { Context } from '../context.js';
import { PlanRulesInput, StartSessionInput } from '../inputs/session.inputs.js';
import { toTask } from '../mappers.js';
import { toSession } from '../session-mappers.js';
import { Task } from '../types/memory.type.js';
import { Session } from '../types/session.type.js';

/** Session.name: given or the client's, else its first plan's first step (read through the request's loaders). */
export async function sessionName(session: Session, ctx: Context): Promise<string | null> {
  if (session.givenName) return session.givenName;
  if (session.planTaskId === null) return null;
  return (await ctx.loaders.taskItems.load(session.planTaskId)).find((item) => !item.deleted)?.text ?? null;
}

/** A session by id, as the API shows it; null for an id no session has (a session purged since). */
export async function sessionById(id: string | null, ctx: Context): Promise<Session | null> {
  if (!id) return null;
  const row = await ctx.loaders.session.load(id);
  return row ? toSession(row) : null;
}

/** The session's plan task while one is recorded: written, and not cleared since. */
async function currentPlan(session: Session, ctx: Context) {
  if (session.planTaskId === null) return null;
  const current = await ctx.loaders.currentPlan.load(session.planTaskId);
  return current === null ? null : ctx.loaders.memory.load(String(current));
}

/** Agent sessions: starting one, its rules and turns, finishing it, and what it shows. */
@Resolver(() => Session)
export class SessionResolver {
  @Query(() => Session, { nullable: true, description: 'A session by id; null when none has it.' })
  async session(@Arg('id', () => ID) id: string, @Ctx() ctx: Context): Promise<Session | null> {
    const row = await ctx.loaders.session.load(id);
    return row ? toSession(row) : null;
  }

  @Query(() => [Session], {
    description: 'Recent top-level sessions (helpers are under their parent\'s children): the ones not finished first, newest first within each.',
  })
  async recentSessions(
    @Ctx() ctx: Context,
    @Arg('first', () => Int, { nullable: true, description: 'How many, 1..100 (default 20).' }) first?: number | null,
  ): Promise<Session[]> {
    const limit = first ?? 20;
    if (!Number.isInteger(limit) || limit < 1 || limit > RECENT_SESSIONS_MAX) {
      throw new DomainError('BAD_USER_INPUT', `first must be 1..${RECENT_SESSIONS_MAX}; got ${limit}. Ask for at most ${RECENT_SESSIONS_MAX} recent sessions.`);
    }
    return (await ctx.services.sessionReader.recent(limit)).map(toSession);
  }

  @Query(() => SessionConnection, {
    description:
      'Every top-level session (helpers are under their parent\'s children), newest first, page by page: working or finished ones only, ' +
      'those whose id starts with idPrefix, or those search finds.',
  })
  async sessions(
    @Ctx() ctx: Context,
    @Args(() => PageArgs) { first, after }: PageArgs,
    @Arg('finished', () => Boolean, { nullable: true, description: 'True: only finished sessions; false: only working ones; null: both.' }) finished?: boolean | null,
    @Arg('idPrefix', () => String, { nullable: true, description: 'Only sessions whose id starts with this (letters, digits, - and _; other characters are ignored).' }) idPrefix?: string | null,
    @Arg('search', () => String, {
      nullable: true,
      description:
        'Only sessions whose id starts with this, or whose name (Session.name) has, ' +
        'for each word of the search, a word starting with it: "refund work" finds "Refund worker 7". Case-insensitive; words are letters and digits, ' +
        'anything else only separates them. Blank: no filter. At most 120 characters ' +
        'and 8 words (TOO_LARGE). Each word is one range of an index of the names\' words.',
    }) search?: string | null,
  ): Promise<SessionConnection> {
    return toConnection(await ctx.services.sessionReader.page({ finished, idPrefix, search: readSessionSearch(search) }, first, after), toSession);
  }

  @Mutation(() => Session, {
    nullable: true,
    description: 'Starts an agent session; the server makes its id (send it as x-session-id). A helper names its parent and gets a plan of its own.',
  })
  async startSession(
    @Arg('input', () => StartSessionInput, { nullable: true }) input: StartSessionInput | null,
    @Ctx() ctx: Context,
  ): Promise<Session> {
    return toSession(await ctx.services.sessions.startSession(ctx.caller, input ?? {}));
  }

  @Mutation(() => Session, { nullable: true, description: "Changes the calling session's plan rules from its next plan update on; the plan already recorded is kept as it is." })
  async setPlanRules(@Arg('rules', () => PlanRulesInput) rules: PlanRulesInput, @Ctx() ctx: Context): Promise<Session> {
    return toSession(await ctx.services.sessions.setPlanRules(ctx.caller, rules));
  }

  @Mutation(() => Session, {
    nullable: true,
    description:
      'Refused (PLAN_OPEN) while any step is PENDING or IN_PROGRESS; the message lists them. NO_PLAN when nothing was ever planned. ' +
      'Otherwise records finishedAt (finishing again keeps the first).',
  })
  async finishSession(@Ctx() ctx: Context): Promise<Session> {
    return toSession((await ctx.services.sessions.finishSession(ctx.caller)).session);
  }

  @Mutation(() => Session, { nullable: true, description: 'A new turn starts: the standing plan clears; the plan itself stays.' })
  async startTurn(@Ctx() ctx: Context): Promise<Session> {
    return toSession(await ctx.services.sessions.startTurn(ctx.caller));
  }

  @FieldResolver(() => Session, { nullable: true, description: 'The session that started this one as its helper; null for a top-level session.' })
  async parent(@Root() session: Session, @Ctx() ctx: Context): Promise<Session | null> {
    if (session.parentId === null) return null;
    const row = await ctx.loaders.session.load(session.parentId);
    return row ? toSession(row) : null;
  }

  @FieldResolver(() => [Session], { description: 'Helper sessions started with this one as parent, oldest first; a session starts at most 100 (TOO_LARGE past it).' })
  async children(@Root() session: Session, @Ctx() ctx: Context): Promise<Session[]> {
    return (await ctx.loaders.sessionChildren.load(session.id)).map(toSession);
  }

  @FieldResolver(() => Task, { nullable: true, description: 'The latest recorded plan; null before the first update or after clearPlan.' })
  async plan(@Root() session: Session, @Ctx() ctx: Context): Promise<Task | null> {
    const row = await currentPlan(session, ctx);
    return row ? toTask(row) : null;
  }

  @FieldResolver(() => Task, {
    nullable: true,
    description: 'The plan as the chat shows it above the message box: cleared when the next turn starts (startTurn), shown again by the next plan update.',
  })
  async standingPlan(@Root() session: Session, @Ctx() ctx: Context): Promise<Task | null> {
    if (!session.planStanding) return null;
    const row = await currentPlan(session, ctx);
    return row ? toTask(row) : null;
  }

  @FieldResolver(() => String, {
    description:
      'One line, e.g. "3/7 · installing dependencies": closed steps (neither PENDING nor IN_PROGRESS) / all steps, then the step in progress, else the first pending one, ' +
      'else "wrapping up"; "planning" while there is no plan. With nothing left to do but a BLOCKED or FAILED step, it says so instead of "wrapping up": ' +
      '"4/4 · stuck: Deploy to staging (blocked)", and "and 2 more" when several are.',
  })
  async statusLine(@Root() session: Session, @Ctx() ctx: Context): Promise<string> {
    const row = await currentPlan(session, ctx);
    if (!row) return statusLineForPeople(null);
    return statusLineForPeople((await ctx.loaders.taskItems.load(row.id)).filter((item) => !item.deleted));
  }

  @FieldResolver(() => String, {
    nullable: true,
    description:
      'What to call the session (an addition to the contract): the name given to startSession, else the MCP client\'s clientInfo title or name ' +
      'from initialize, else the first step of its first plan (kept from then on, whatever later plans hold); null before any of them.',
  })
  async name(@Root() session: Session, @Ctx() ctx: Context): Promise<string | null> {
    return sessionName(session, ctx);
  }

  @FieldResolver(() => Date, { description: 'When the session last changed: its latest plan update, its finish, or its start, whichever is latest.' })
  async lastActiveAt(@Root() session: Session, @Ctx() ctx: Context): Promise<Date> {
    const plan = session.planTaskId === null ? null : await ctx.loaders.memory.load(String(session.planTaskId));
    const times = [session.createdAt.getTime(), session.finishedAt?.getTime() ?? 0, plan ? new Date(plan.updatedAt).getTime() : 0];
    return new Date(Math.max(...times));
  }

  @FieldResolver(() => [String], {
    description:
      'Domains this session has named in its calls (for reminders), sorted: a domain or under argument, a domain input field, or a task or note ' +
      'it changed in that domain. Reading a task or note by id does not count; a refused call records nothing. A session keeps at most 100: ' +
      'past them, a newly named domain is not recorded.',
  })
  async domains(@Root() session: Session, @Ctx() ctx: Context): Promise<string[]> {
    return ctx.loaders.sessionDomains.load(session.id);
  }
}

/** Task.session: the owner of a plan. */
@Resolver(() => Task)
export class TaskSessionResolver {
  @FieldResolver(() => Session, { nullable: true, description: 'The session whose plan this task is; null for a knowledge-base task.' })
  async session(@Root() task: Task, @Ctx() ctx: Context): Promise<Session | null> {
    return sessionById(task.sessionId, ctx);
  }

  @FieldResolver(() => String, { description: 'A short label; never carries an [[#id]] token. A plan is titled by its session\'s name ("Plan of <name>"), as people read it, never by the session\'s id.' })
  title(@Root() task: Task, @Ctx() ctx: Context): string | Promise<string> {
    // A domain's task answers at once: a list of 400 tasks waits on no promise for its titles.
    if (!task.sessionId) return task.title;
    return sessionById(task.sessionId, ctx).then(async (session) => (session ? planTitle(session.id, await sessionName(session, ctx)) : task.title));
  }
}
