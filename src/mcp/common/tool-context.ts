import type { Logger } from 'pino';
import type { PlanPreset } from '../../domain/plan-rules.js';
import type { Services } from '../../services/index.js';
import type { Access, Caller } from '../../services/kernel/unit-of-work.js';
import { cleanSessionKey } from '../../domain/session-keys.js';
import { ToolRefusal } from './tool-result.js';
import type { WorkWakeups } from '../../services/claims/work-wakeups.js';

/** How an MCP session finds its taskbase session (api/mcp.md "Transports and the session"). */
export interface SessionOptions {
  /** Join this started session (--session, x-session-id) instead of starting one. */
  sessionId?: string | null;
  /**
   * The chat's stable key (--session-key, x-session-key): the session this
   * token's key names, started under it the first time. A reconnect with
   * the same key finds the same session and its plan.
   */
  sessionKey?: string | null;
  /** Start a helper's session under this one (--parent, x-parent-session-id). */
  parentId?: string | null;
  /** Turn the one-active rule on for the session started here (--one-active, ?oneActive=1). */
  oneActive?: boolean;
  /** The preset of the connection's plan set; WHOLE_LIST when it has none. */
  preset: PlanPreset | null;
  /** A stateless HTTP call: no session is started, only x-session-id is used. */
  stateless?: boolean;
  /**
   * The bearer token's principal (src/http/auth.ts principalOf) over HTTP with auth
   * on; null otherwise. The session started here belongs to it, and a session
   * joined by id must be its own, as over GraphQL.
   */
  principal?: string | null;
  /** What the MCP client called itself in initialize (clientInfo), cleaned; the name of a session started here. */
  clientName?: () => string | null;
}

/**
 * The taskbase session behind one MCP session: joined when named, else
 * found or started at the first tool call (a connection that only
 * initialized has committed to nothing, so the first call's session_key
 * can still choose the chat). A read-only connection starts none.
 */
export class SessionBinding {
  private started?: Promise<string | null>;
  /** The chat key this connection answers to: the one it connected with, or the first a tool call sent. */
  private key: string | null;

  constructor(
    private readonly services: Services,
    private readonly options: SessionOptions,
    private readonly access: Access,
  ) {
    this.key = options.sessionKey ?? null;
  }

  /** Who the calling token is (null with auth off): what every service call acts as, beside the session. */
  get principal(): string | null {
    return this.options.principal ?? null;
  }

  id(): Promise<string | null> {
    if (!this.started) {
      const started = this.resolve();
      this.started = started;
      // A start that failed (the database out of reach) is tried again by the next call, not kept as the answer.
      started.catch(() => { if (this.started === started) this.started = undefined; });
    }
    return this.started;
  }

  /**
   * A tool call's session_key (tool-registry.ts): the connection's session
   * is the one this key names, found or started as x-session-key does. The
   * key is the chat's name, so it wins: before any session it chooses the
   * connection's; a new key moves the connection to that chat (Claude Code
   * keeps its MCP connection across /clear and /resume, which change the
   * chat's session_id); after a session started by a call without a key, a
   * key that names none yet is given to that session. Only a connection
   * joined by id (--session, x-session-id) refuses a key naming another
   * session, and then nothing is recorded. The same key again costs nothing.
   */
  async useKey(raw: string): Promise<void> {
    const key = cleanSessionKey(raw, 'argument');
    if (key === this.key) return;
    if (this.key !== null || (!this.started && !this.options.sessionId)) {
      // Set before any await: a call that arrives meanwhile, with or without the key, finds the same session.
      this.key = key;
      this.started = undefined;
      return;
    }
    const current = await this.id();
    if (current === null) {
      // A read-only or stateless connection holds no session yet: the key's, when it has one, is used from now on.
      this.key = key;
      this.started = undefined;
      return;
    }
    const caller = { sessionId: current, principal: this.principal };
    const named = this.access === 'read'
      ? await this.services.sessionReader.sessionIdForKey(this.principal, key)
      : await this.services.sessions.nameSessionByKey(caller, key);
    if (named === current || (named !== null && !this.options.sessionId)) {
      this.key = key;
      if (named !== current) this.started = undefined;
      return;
    }
    throw new ToolRefusal(
      `session_key "${key}" names another chat, and this connection works for the one it connected to by id, so nothing was recorded. ` +
        'Leave session_key out on this connection, or connect again without the id and send the key from the first call on.',
    );
  }

  /**
   * True when no hook can know the session but from an answer: this
   * connection started it, neither named by id nor found by a chat key.
   */
  get unnamed(): boolean {
    return !this.options.sessionId && this.key === null;
  }

  private answered = false;

  /** True the first time it is asked: what an answer says once per connection is said by the first. */
  firstAnswer(): boolean {
    const first = !this.answered;
    this.answered = true;
    return first;
  }

  private async resolve(): Promise<string | null> {
    const { sessionId, parentId, oneActive, preset, stateless } = this.options;
    const sessionKey = this.key;
    if (sessionId) return sessionId;
    const caller = { sessionId: null, principal: this.principal };
    // A read-only token may use the session its key names, and starts none.
    if (sessionKey && this.access === 'read') return this.services.sessionReader.sessionIdForKey(this.principal, sessionKey);
    const start = {
      parentId: parentId ?? null, preset: preset ?? 'WHOLE_LIST', rules: oneActive ? { oneActive: true } : null, clientName: this.options.clientName?.() ?? null,
    } as const;
    if (sessionKey) return (await this.services.sessions.sessionForKey(caller, sessionKey, start)).id;
    if (stateless || this.access === 'read') return null;
    return (await this.services.sessions.startSession(caller, start)).id;
  }
}

/** What every tool handler gets. */
export interface ToolContext {
  services: Services;
  session: SessionBinding;
  access: Access;
  logger: Logger;
  /**
   * The connection asked for structured output (?structured=1, --structured):
   * results carry structuredContent beside the text. Off by default, as some
   * clients read only structuredContent when it is there (tool-registry.ts).
   */
  structured: boolean;
  /** What a waiting task_next wakes on (work-wakeups.ts). */
  wakeups: WorkWakeups;
}

/** The caller a service call acts as: the MCP session's taskbase session. */
export async function callerOf(ctx: ToolContext): Promise<Caller> {
  return { sessionId: await ctx.session.id(), principal: ctx.session.principal };
}

/** Refuses a recording tool on a read-only connection, before anything is sent. */
export function requireWrite(ctx: ToolContext): void {
  if (ctx.access === 'read') {
    throw new ToolRefusal('this connection\'s bearer token may only read, so nothing was recorded. Connect with a token that is not ":read" to make changes.');
  }
}
