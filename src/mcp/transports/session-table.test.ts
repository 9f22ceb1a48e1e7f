import { afterEach, describe, expect, it } from 'vitest';
import { LOOPBACK_CLIENT } from '../../http/connection-limits.js';
import { isRefusal, McpSessionTable, type SessionOwner, type SessionRefusal, type SessionSlot } from './session-table.js';

const A: SessionOwner = { key: 'principal-a', kind: 'token' };
const B: SessionOwner = { key: 'principal-b', kind: 'token' };
const C: SessionOwner = { key: 'principal-c', kind: 'token' };

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

  it('at the owner\'s cap closes the owner\'s least recently used session, never one in a call; at the server\'s cap the server\'s', () => {
    const closed: string[] = [];
    const sessions = new McpSessionTable<string>({ maxSessions: 4, maxSessionsPerToken: 3, idleMs: 60_000 }, (value, because) => closed.push(`${value}:${because}`), () => now);
    tables.push(sessions);
    now = 1_000;
    sessions.add('a1', 'a1', A, sessions.reserve(A) as SessionSlot);
    now = 2_000;
    sessions.add('a2', 'a2', A, sessions.reserve(A) as SessionSlot);
    now = 3_000;
    sessions.add('a3', 'a3', A, sessions.reserve(A) as SessionSlot);
    now = 4_000;
    sessions.add('b1', 'b1', B, sessions.reserve(B) as SessionSlot);
    // a1 is used again and is in a call: a2 is now A's least recently used, and a1 may not be closed.
    now = 5_000;
    const call = sessions.use('a1', 'call')!;
    // a3's client listens on its GET stream: listening is not a call, so a3 may be closed, and it is no use either.
    now = 6_000;
    sessions.use('a3', 'stream');

    now = 7_000;
    expect(isRefusal(sessions.reserve(A))).toBe(false);
    expect(closed).toEqual(['a2:evicted']);
    expect(sessions.use('a2', 'call')).toBeUndefined();

    // The server is full (a1, a3, b1 and the slot just taken): C's newcomer closes the server's least recently used:
    // a3, last called at 3 s (its stream, opened since, is not a use), before B's b1 (4 s).
    expect(isRefusal(sessions.reserve(C))).toBe(false);
    expect(closed).toEqual(['a2:evicted', 'a3:evicted']);
    call.done();
  });

  it('refuses only when every session that counts is in a call or starting: 429 for the owner, 503 for the server', () => {
    const sessions = table(3, 2);
    now = 1_000;
    sessions.add('a1', 'a1', A, sessions.reserve(A) as SessionSlot);
    sessions.add('a2', 'a2', A, sessions.reserve(A) as SessionSlot);
    const calls = [sessions.use('a1', 'call')!, sessions.use('a2', 'call')!];
    const mine = sessions.reserve(A) as SessionRefusal;
    expect(mine).toMatchObject({ status: 429, open: 2, limit: 2, retryAfterSeconds: 1 });
    expect(mine.message).toMatch(/^This bearer token has 2 MCP sessions open, the most one token may hold \(TASKBASE_MCP_MAX_SESSIONS_PER_TOKEN=2\), and each is in the middle of a call/);
    const starting = sessions.reserve(B) as SessionSlot;
    const full = sessions.reserve(C) as SessionRefusal;
    expect(full).toMatchObject({ status: 503, open: 3, limit: 3 });
    expect(full.message).toMatch(/^The server has 3 MCP sessions open, the most it holds \(TASKBASE_MCP_MAX_SESSIONS=3\)/);
    // A call ends: that session is idle, and the next initialize closes it instead of being refused.
    calls[0].done();
    expect(isRefusal(sessions.reserve(A))).toBe(false);
    starting.release();
    calls[1].done();
  });

  it('names the machine when auth is off and every loopback address is one client', () => {
    const sessions = table(10, 1);
    const local: SessionOwner = { key: LOOPBACK_CLIENT, kind: 'address' };
    sessions.reserve(local);
    const refused = sessions.reserve(local) as SessionRefusal;
    expect(refused.message).toMatch(/^This machine \(every loopback address counts as one client\) has 1 MCP sessions open/);
  });
});
