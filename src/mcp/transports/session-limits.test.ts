import { describe, expect, it } from 'vitest';
import { idleText, loadMcpSessionLimits } from './session-limits.js';

describe('loadMcpSessionLimits', () => {
  it('defaults to 2000 sessions, 100 per token and 10 idle minutes', () => {
    expect(loadMcpSessionLimits({})).toEqual({ maxSessions: 2000, maxSessionsPerToken: 100, idleMs: 600_000 });
  });

  it('takes whole caps and minutes with fractions', () => {
    expect(loadMcpSessionLimits({ TASKBASE_MCP_MAX_SESSIONS: '50', TASKBASE_MCP_MAX_SESSIONS_PER_TOKEN: '5', TASKBASE_MCP_IDLE_MINUTES: '0.5' }))
      .toEqual({ maxSessions: 50, maxSessionsPerToken: 5, idleMs: 30_000 });
  });

  it('stops with one line naming the variable and what it accepts', () => {
    expect(() => loadMcpSessionLimits({ TASKBASE_MCP_MAX_SESSIONS: '0' })).toThrow('TASKBASE_MCP_MAX_SESSIONS must be a whole number above 0; got "0".');
    expect(() => loadMcpSessionLimits({ TASKBASE_MCP_MAX_SESSIONS_PER_TOKEN: '2.5' })).toThrow('TASKBASE_MCP_MAX_SESSIONS_PER_TOKEN must be a whole number above 0; got "2.5".');
    expect(() => loadMcpSessionLimits({ TASKBASE_MCP_IDLE_MINUTES: 'ten' })).toThrow(/^TASKBASE_MCP_IDLE_MINUTES must be a number of minutes, at least 0\.002 \(fractions allowed, e\.g\. 0\.5\); got "ten"\.$/);
    expect(() => loadMcpSessionLimits({ TASKBASE_MCP_IDLE_MINUTES: '0' })).toThrow(/TASKBASE_MCP_IDLE_MINUTES/);
  });

  it('says the idle time in minutes, or seconds below a whole minute', () => {
    expect([idleText(600_000), idleText(60_000), idleText(30_000), idleText(600)]).toEqual(['10 minutes', '1 minute', '30 seconds', '1 second']);
  });
});
