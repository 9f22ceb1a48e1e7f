import type { ClaimEntity, ItemEntity } from '../../db/entities/index.js';
import { leasePhrase, type FenceVerdict } from '../../domain/claims.js';
import type { ToolContext } from '../common/tool-context.js';

/** Claims and blockers as the knowledge-base tools show them. */

interface ClaimView {
  session: string;
  claimed_at: string;
  expires_at: string;
}

export function claimView(claim: ClaimEntity | null): ClaimView | null {
  return claim && { session: claim.sessionId, claimed_at: claim.claimedAt, expires_at: claim.expiresAt };
}

/**
 * "claimed by you for 900 s (until …)" or "claimed by session … for 840 s (until …)": an agent has no clock to
 * compare an instant with, so the seconds left come first. They are counted from this server's clock as the answer
 * is written; the instant is the database's, which expiry goes by.
 */
export function claimPhrase(claim: ClaimView, self: string | null, now: string = new Date().toISOString()): string {
  return `claimed by ${claim.session === self ? 'you' : `session ${claim.session}`} ${leasePhrase(claim.expires_at, now)}`;
}

/** What the claims fence let through, as a line of task_item's answer; null when there is nothing to say. */
export function fenceLine(fence: FenceVerdict, itemId: number): string | null {
  if (fence.overrode) return `Forced past session ${fence.overrode}'s claim on item ${itemId}: the override is recorded in the task's history with your reason.`;
  if (fence.lapsed) return `Note: your claim on item ${itemId} had lapsed; no one else took the item, so the change was recorded. Claim it again (task_claim) if you keep working on it.`;
  return null;
}

/** The line an answer adds when another session's claim holds the item just worked on (a comment, a link, or a forced change). */
export async function heldByAnotherLine(ctx: ToolContext, item: ItemEntity, self: string | null): Promise<string | null> {
  const [claim] = await ctx.services.claimReader.claimsOfItems([item.id]);
  if (!claim || claim.sessionId === self) return null;
  return `Note: item ${item.id} is ${claimPhrase(claimView(claim)!, self)}: another agent is working on it. Your change was recorded; coordinate with that session (or pick other work with task_next).`;
}
