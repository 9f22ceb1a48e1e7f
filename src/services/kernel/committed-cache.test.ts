import { describe, expect, it } from 'vitest';
import { isNewer } from './committed-cache.js';

describe('isNewer', () => {
  it("orders SQLite's data_version by its number", () => {
    expect(isNewer('12', '9')).toBe(true);
    expect(isNewer('9', '12')).toBe(false);
    expect(isNewer('9', '9')).toBe(false);
  });

  it('orders PostgreSQL snapshots by xmax, then by the transactions still in progress', () => {
    expect(isNewer('700:705:', '700:704:')).toBe(true);
    expect(isNewer('700:704:', '700:705:')).toBe(false);
    expect(isNewer('701:705:', '700:705:700')).toBe(true);
    expect(isNewer('700:705:700', '700:705:700,702')).toBe(true);
    expect(isNewer('700:705:700,702', '700:705:700')).toBe(false);
  });

  it('takes a text neither database gives as the newer, so a cache starts over at it', () => {
    expect(isNewer('not a version', '12')).toBe(true);
  });
});
