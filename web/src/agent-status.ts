/**
 * What "Agents now" says about one working session, from what the page read:
 * what it holds, what is stuck, when it last did anything, and so how much it
 * needs a person. Plain functions, so the order and the flags are the same
 * wherever they are shown.
 */

import type { Steering } from './steering';

/** Nothing recorded for this long: the agent may be thinking, or waiting on its person. */
export const IDLE_AFTER_MS = 10 * 60_000;
/** Nothing recorded for this long: the agent has most likely gone away without finishing. */
export const STALE_AFTER_MS = 60 * 60_000;

/** Needs a person first to last: a stuck agent, a stale one, an idle one, one at work. */
export type AgentFlag = 'stuck' | 'stale' | 'idle' | 'working';
const RANK: Record<AgentFlag, number> = { stuck: 0, stale: 1, idle: 2, working: 3 };

export interface AgentItem { id: string; number: number | null; text: string; state: string; note: string | null; updatedAt: string }
export interface AgentClaim extends AgentItem {
  task: { id: string; title: string; domain: string | null };
  claim: { claimedAt: string; expiresAt: string } | null;
  /** False while it waits for items it depends on that are not settled. */
  ready: boolean;
}
export interface AgentSession {
  id: string; name: string | null; preset: string; createdAt: string; lastActiveAt: string; statusLine: string;
  claims: AgentClaim[];
  plan: { id: string; items: { nodes: AgentItem[] } } | null;
  /** A person's latest change to its plan or claims, and whether it has seen it. */
  steering?: Steering | null;
}

export interface AgentNow {
  session: AgentSession;
  flag: AgentFlag;
  /** The latest thing it did that the server recorded: a plan update, a claim, a step's change, its start. */
  lastActivity: number;
  doing: AgentItem[];
  stuck: AgentItem[];
}

const settled = (state: string) => state === 'DONE' || state === 'DROPPED';

/** One working session, read at `now`. */
export function agentNow(session: AgentSession, now: number): AgentNow {
  const steps = session.plan?.items.nodes ?? [];
  const times = [session.lastActiveAt, ...session.claims.map((item) => item.claim?.claimedAt ?? item.updatedAt), ...steps.map((step) => step.updatedAt)];
  const lastActivity = Math.max(...times.map((time) => Date.parse(time)));
  const doing = steps.filter((step) => step.state === 'IN_PROGRESS');
  // A claimed item that is blocked or failed is as stuck as a step; one still waiting for other items is too, as nobody can go on.
  const stuck = [
    ...steps.filter((step) => step.state === 'BLOCKED' || step.state === 'FAILED'),
    ...session.claims.filter((item) => item.state === 'BLOCKED' || item.state === 'FAILED' || (!item.ready && !settled(item.state))),
  ];
  const quiet = now - lastActivity;
  const flag: AgentFlag = stuck.length ? 'stuck' : quiet >= STALE_AFTER_MS ? 'stale' : quiet >= IDLE_AFTER_MS ? 'idle' : 'working';
  return { session, flag, lastActivity, doing, stuck };
}

/** What needs a person first; within a flag, the one quiet longest first. */
export function byNeed(a: AgentNow, b: AgentNow): number {
  return RANK[a.flag] - RANK[b.flag] || a.lastActivity - b.lastActivity || a.session.id.localeCompare(b.session.id);
}

/** "just now", "2 min ago", "3 h ago", "4 d ago". */
export function ago(ms: number): string {
  return `${duration(ms)}${ms < 60_000 ? '' : ' ago'}`;
}

/** "just now", "2 min", "3 h 5 min", "4 d": how long something has held. */
export function duration(ms: number): string {
  const minutes = Math.floor(Math.max(0, ms) / 60_000);
  if (minutes < 1) return ms < 60_000 ? 'just now' : '1 min';
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
  return `${Math.floor(hours / 24)} d`;
}
