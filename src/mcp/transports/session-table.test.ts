import { afterEach, describe, expect, it } from 'vitest';
import { isRefusal, McpSessionTable, type SessionOwner, type SessionRefusal, type SessionSlot } from './session-table.js';

const A: SessionOwner = { key: 'principal-a', kind: 'token' };
const B: SessionOwner = { key: 'principal-b', kind: 'token' };

describe('McpSessionTable', () => {
  let now = 0;
  const tables: McpSessionTable<string>[] = [];
  const table = (maxSessions: number, maxSessionsPerToken: number) => {
    const made = new McpSessionTable<string>({ maxSessions, maxSessionsPerToken, idleMs: 60_000 }, () => undefined, () => now);
    tables.push(made);
    return made;
  };
  afterEach(() => { for (const made of tables.splice(0)) made.drain(); });

  it('counts initializes under way, so slots taken together cannot pass the cap; a slot is released once', () => {
    const sessions = table(10, 2);
    const first = sessions.reserve(A) as SessionSlot;
    const second = sessions.reserve(A) as SessionSlot;
    const third = sessions.reserve(A);
    expect(isRefusal(third) && third.status).toBe(429);
    first.release();
    first.release();
    expect(isRefusal(sessions.reserve(A))).toBe(false);
    expect(isRefusal(sessions.reserve(A))).toBe(true);
    second.release();
    expect(isRefusal(sessions.reserve(B))).toBe(false);
  });

  it('refuses the owner at its cap with 429 before the server at its total with 503, with Retry-After from the longest-idle session', () => {
    const sessions = table(3, 2);
    now = 1_000;
    sessions.add('a1', 'a1', A, sessions.reserve(A) as SessionSlot);
    now = 21_000;
    sessions.add('a2', 'a2', A, sessions.reserve(A) as SessionSlot);
    sessions.add('b1', 'b1', B, sessions.reserve(B) as SessionSlot);
    now = 31_000;
    const mine = sessions.reserve(A) as SessionRefusal;
    expect(mine).toMatchObject({ status: 429, open: 2, limit: 2, retryAfterSeconds: 30 });
    const full = sessions.reserve({ key: 'principal-c', kind: 'token' }) as SessionRefusal;
    expect(full).toMatchObject({ status: 503, open: 3, limit: 3, retryAfterSeconds: 30 });
    expect(full.message).toMatch(/^The server has 3 MCP sessions open, the most it holds \(TASKBASE_MCP_MAX_SESSIONS=3\)\. End the sessions you no longer use/);
    sessions.remove('a1');
    expect(isRefusal(sessions.reserve(A))).toBe(false);
  });
});
