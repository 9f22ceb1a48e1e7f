import type { Logger } from 'pino';
import type { PlanPreset } from '../../domain/plan-rules.js';
import type { Services } from '../../services/index.js';
import type { Access, Caller } from '../../services/kernel/unit-of-work.js';
import { ToolRefusal } from './tool-result.js';

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
   * The bearer token's principal (src/auth.ts principalOf) over HTTP with auth
   * on; null otherwise. The session started here belongs to it, and a session
   * joined by id must be its own, as over GraphQL.
   */
  principal?: string | null;
  /** What the MCP client called itself in initialize (clientInfo), cleaned; the name of a session started here. */
  clientName?: () => string | null;
}

/**
 * The taskbase session behind one MCP session: joined when named, else
 * started once (when the MCP session initializes, or at the first tool call,
 * whichever is first). A read-only connection starts none.
 */
export class SessionBinding {
  private started?: Promise<string | null>;

  constructor(
    private readonly services: Services,
    private readonly options: SessionOptions,
    private readonly access: Access,
  ) {}

  /** Who the calling token is (null with auth off): what every service call acts as, beside the session. */
  get principal(): string | null {
    return this.options.principal ?? null;
  }

  id(): Promise<string | null> {
    this.started ??= this.resolve();
    return this.started;
  }

  /**
   * True when no hook can know the session but from an answer: this
   * connection started it, neither named by id nor found by a chat key.
   */
  get unnamed(): boolean {
    return !this.options.sessionId && !this.options.sessionKey;
  }

  private answered = false;

  /** True the first time it is asked: what an answer says once per connection is said by the first. */
  firstAnswer(): boolean {
    const first = !this.answered;
    this.answered = true;
    return first;
  }

  private async resolve(): Promise<string | null> {
    const { sessionId, sessionKey, parentId, oneActive, preset, stateless } = this.options;
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
