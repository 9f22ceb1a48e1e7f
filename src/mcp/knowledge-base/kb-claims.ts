import type { ClaimEntity, ItemEntity } from '../../db/entities/index.js';
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

/** "claimed by you until …" or "claimed by session … until …". */
export function claimPhrase(claim: ClaimView, self: string | null): string {
  return `claimed by ${claim.session === self ? 'you' : `session ${claim.session}`} until ${claim.expires_at}`;
}

/** The line an answer adds when another session's claim holds the item just worked on: claims coordinate, they do not refuse. */
export async function heldByAnotherLine(ctx: ToolContext, item: ItemEntity, self: string | null): Promise<string | null> {
  const [claim] = await ctx.services.claimReader.claimsOfItems([item.id]);
  if (!claim || claim.sessionId === self) return null;
  return `Note: item ${item.id} is ${claimPhrase(claimView(claim)!, self)}: another agent is working on it. Your change was recorded; coordinate with that session (or pick other work with task_next).`;
}
