import { describe, expect, it } from 'vitest';
import { DomainError } from './errors.js';
import { cleanSessionName, clientSessionName, SESSION_NAME_MAX } from './session-names.js';

describe('session names', () => {
  it('an agent gives a label: trimmed, and refused when empty or too long', () => {
    expect(cleanSessionName('  Fix the checkout  ')).toBe('Fix the checkout');
    expect(() => cleanSessionName('   ')).toThrow(DomainError);
    expect(() => cleanSessionName('x'.repeat(SESSION_NAME_MAX + 1))).toThrow(/limit is 120/);
  });

  it("a client's title wins over its name; blank is no name and a long one is cut", () => {
    expect(clientSessionName({ name: 'claude-code', title: 'Claude Code' })).toBe('Claude Code');
    expect(clientSessionName({ name: 'claude-code', title: '  ' })).toBe('claude-code');
    expect(clientSessionName({ name: '\n' })).toBeNull();
    expect(clientSessionName(undefined)).toBeNull();
    expect(clientSessionName({ name: 'a'.repeat(500) })).toHaveLength(SESSION_NAME_MAX);
  });
});
