import type { ChangeAction } from '../../domain/history.js';
import { randomUUID } from 'node:crypto';
import { DomainError } from '../../domain/errors.js';
import { parentNotFound, sessionIdOf } from '../../domain/session-ids.js';
import { checkHelperCount } from '../../domain/session-limits.js';
import { checkRulesChange, mergePlanRules, startingRules, whyNotFinished, type PlanPreset, type PlanRulesChange } from '../../domain/plan-rules.js';
import { noPlan } from '../../domain/plan-steps.js';
import { ItemEntity, SessionEntity, SessionKeyEntity } from '../../db/entities/index.js';
import { cleanSessionKey } from '../../domain/session-keys.js';
import { cleanSessionName } from '../../domain/session-names.js';
import { presetOfRules } from '../../domain/plan-render.js';
import { currentPlanIds, loadCallingSession, storeSessionName } from './session-store.js';
import { updateSessionRow, type SessionRowChange } from '../task-aggregate/session-lock.js';
import { endClaimsOfSession } from '../claims/claim-store.js';
import { itemsOfTaskIds } from '../task-aggregate/item-rows.js';
import type { Caller, UnitOfWork, Writer } from '../kernel/unit-of-work.js';

export interface StartSessionInput {
  parentId?: string | null;
  /** The rules to start from; WHOLE_LIST when none. */
  preset?: PlanPreset | null;
  rules?: PlanRulesChange | null;
  /** What to call the session: a name the agent gives (checked as a label). */
  name?: string | null;
  /** A name from the MCP client's clientInfo (already cleaned; used when no name is given). */
  clientName?: string | null;
}

/**
 * Agent sessions: starting one (a helper names its parent), its rules, its
 * turns, and finishing it against its plan. The plan itself is PlanService's.
 */
export class SessionService {
  constructor(private readonly writer: Writer) {}

  /**
   * A new session with a server-made id; its rules are the preset's (WHOLE_LIST by default) with the given rules over them.
   * With auth on it belongs to the calling token: only that token may change it, or start a helper under it.
   */
  async startSession(caller: Caller, input: StartSessionInput = {}): Promise<SessionEntity> {
    return this.writer.run(caller, (uow) => this.start(uow, randomUUID(), input));
  }

  /**
   * The session a chat key names for the calling token (per principal; one
   * namespace with auth off), started from `input` the first time the key is
   * sent: a chat that reconnects with its key finds its session and plan.
   * The key's row is claimed first (INSERT … ON CONFLICT DO NOTHING, which
   * on PostgreSQL waits for a concurrent claim of the same key), so two
   * connections sending one key at once agree on one session. A key whose
   * session is gone starts a new one under the same key.
   */
  async sessionForKey(caller: Caller, rawKey: string, input: StartSessionInput = {}): Promise<SessionEntity> {
    const key = cleanSessionKey(rawKey);
    const principal = caller.principal ?? '';
    return this.writer.run(caller, async (uow) => {
      const fresh = randomUUID();
      await uow.manager.createQueryBuilder().insert().into(SessionKeyEntity)
        .values({ principal, key, sessionId: fresh, createdAt: uow.now }).orIgnore().execute();
      const row = await uow.manager.findOneByOrFail(SessionKeyEntity, { principal, key });
      if (row.sessionId !== fresh) {
        const found = await uow.manager.findOneBy(SessionEntity, { id: row.sessionId });
        if (found) return found;
        await uow.manager.update(SessionKeyEntity, { principal, key }, { sessionId: fresh });
      }
      return this.start(uow, fresh, input);
    });
  }

  /**
   * Gives the calling session (caller.sessionId, which must be the
   * caller's) a chat key, when the key names no session yet for this token
   * (or names one that is gone): a chat whose first calls came without its
   * key keeps its list under the key from then on. Answers the id of the
   * session the key names afterwards: the caller's, or another session's
   * when the key was already taken (nothing is changed then).
   */
  async nameSessionByKey(caller: Caller, rawKey: string): Promise<string> {
    const key = cleanSessionKey(rawKey, 'argument');
    const principal = caller.principal ?? '';
    return this.writer.run(caller, async (uow) => {
      const own = (await loadCallingSession(uow)).id;
      await uow.manager.createQueryBuilder().insert().into(SessionKeyEntity)
        .values({ principal, key, sessionId: own, createdAt: uow.now }).orIgnore().execute();
      const row = await uow.manager.findOneByOrFail(SessionKeyEntity, { principal, key });
      if (row.sessionId === own || (await uow.manager.existsBy(SessionEntity, { id: row.sessionId }))) return row.sessionId;
      await uow.manager.update(SessionKeyEntity, { principal, key }, { sessionId: own });
      return own;
    }, { asSession: true });
  }

  /** A new session with this id, in the caller's unit of work. */
  private async start(uow: UnitOfWork, id: string, input: StartSessionInput): Promise<SessionEntity> {
    let parentId: string | null = null;
    if (input.parentId !== null && input.parentId !== undefined) {
      const parent = await this.parentOf(uow, input.parentId);
      // Session.children lists every helper, so their number has a bound the query check can count on.
      const helpers = await uow.manager.countBy(SessionEntity, { parentId: parent.id });
      checkHelperCount(parent.id, helpers);
      parentId = parent.id;
    }
    const rules = startingRules(input.preset, input.rules);
    const session = uow.manager.create(SessionEntity, {
      id, parentId, rules, planTaskId: null,
      planStanding: false, turn: 0, finishedAt: null, lastRemindedAt: null, createdAt: uow.now,
      owner: uow.caller.principal ?? null,
      name: null,
      // The set it starts with stays its set when setPlanRules later moves a rule; rules sent without a preset name the set they match best.
      preset: input.preset ?? presetOfRules(rules),
    });
    await uow.manager.insert(SessionEntity, session);
    const name = input.name !== null && input.name !== undefined ? cleanSessionName(input.name) : input.clientName ?? null;
    if (name) await storeSessionName(uow, session, name);
    uow.emit({ entity: 'SESSION', id: session.id, action: 'SESSION_STARTED' });
    return session;
  }

  /**
   * The session a new helper starts under. NOT_FOUND when the id names no
   * session, and the same NOT_FOUND, word for word, when it names another
   * bearer token's: helpers are the parent's to start (Session.children is
   * capped, so another token's helpers would lock the owner out), and the
   * answer must not tell another token's session from none (errors.md
   * NOT_FOUND: "nothing this caller may see"). A parent started without auth,
   * or a call without auth, is not checked, as for x-session-id.
   */
  private async parentOf(uow: UnitOfWork, sent: string): Promise<SessionEntity> {
    const id = sessionIdOf(sent);
    const parent = id ? await uow.manager.findOneBy(SessionEntity, { id }) : null;
    const principal = uow.caller.principal;
    if (!parent || (parent.owner && principal && parent.owner !== principal)) throw parentNotFound(sent);
    return parent;
  }

  /** Changes the calling session's rules; they apply from its next plan update on, the recorded plan is kept as it is. */
  async setPlanRules(caller: Caller, rules: PlanRulesChange): Promise<SessionEntity> {
    return this.change(caller, 'RULES_CHANGED', async (_uow, session) => {
      const next = mergePlanRules(session.rules, rules);
      checkRulesChange(session.rules, next);
      return { rules: next };
    });
  }

  /**
   * Records finishedAt, and ends the session's claims, once no step is PENDING or IN_PROGRESS: NO_PLAN when nothing was
   * ever planned, PLAN_OPEN (listing the open steps) while any is PENDING or
   * IN_PROGRESS. Finishing again keeps the first finishedAt. Answers with the
   * session and its plan's items (deleted ones too, in list order) as this
   * transaction read them, so the finish tool shows the list without reading it again.
   */
  async finishSession(caller: Caller): Promise<{ session: SessionEntity; items: ItemEntity[] }> {
    let items: ItemEntity[] = [];
    const session = await this.change(caller, 'SESSION_FINISHED', async (uow, session) => {
      // Never planned, or cleared since: either way there is no plan to be finished against.
      const [planTaskId] = await currentPlanIds(uow.manager, [session.planTaskId]);
      if (planTaskId === null) throw noPlan('finishSession');
      items = await itemsOfTaskIds(uow.manager, [planTaskId]);
      const refusal = whyNotFinished(items.filter((item) => !item.deleted));
      if (refusal) throw new DomainError('PLAN_OPEN', refusal);
      // A finished session works on nothing: its claims end now rather than when their leases run out.
      await endClaimsOfSession(uow.manager, session.id);
      return { finishedAt: session.finishedAt ?? uow.now };
    });
    return { session, items };
  }

  /** A new turn: the turn count goes up and the standing plan clears (the plan itself stays). */
  async startTurn(caller: Caller): Promise<SessionEntity> {
    return this.change(caller, 'TURN_STARTED', async (_uow, session) => ({
      turn: session.turn + 1,
      planStanding: false,
    }));
  }

  /** One change of the calling session (NO_SESSION without one): a row update and its change event. */
  private async change(
    caller: Caller,
    action: ChangeAction,
    decide: (uow: UnitOfWork, session: SessionEntity) => Promise<SessionRowChange>,
  ): Promise<SessionEntity> {
    return this.writer.run(caller, async (uow) => {
      const session = await loadCallingSession(uow);
      const change = await decide(uow, session);
      await updateSessionRow(uow, session.id, change);
      Object.assign(session, change);
      uow.emit({ entity: 'SESSION', id: session.id, action });
      return session;
    }, { asSession: true });
  }
}
