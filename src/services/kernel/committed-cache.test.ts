import { describe, expect, it } from 'vitest';
import { isNewer, readAfterThisTurn, sharedRead } from './committed-cache.js';

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

describe('sharedRead (PostgreSQL version reads)', () => {
  /** A read whose answers the test gives: each call's promise, settled by `answer(i, value)` or `fail(i)`. */
  function reads() {
    const pending: { resolve: (value: string) => void; reject: (error: Error) => void }[] = [];
    return {
      read: () => new Promise<string>((resolve, reject) => { pending.push({ resolve, reject }); }),
      sent: () => pending.length,
      answer: async (i: number, value: string) => { pending[i].resolve(value); await new Promise((resolve) => setTimeout(resolve, 0)); },
      fail: async (i: number) => { pending[i].reject(new Error('gone')); await new Promise((resolve) => setTimeout(resolve, 0)); },
    };
  }

  it('never answers a request with a read sent before it came; those that came meanwhile share the next one', async () => {
    const pool = {};
    const db = reads();
    const first = sharedRead(pool, db.read);
    expect(db.sent()).toBe(1);
    const waiting = [sharedRead(pool, db.read), sharedRead(pool, db.read), sharedRead(pool, db.read)];
    // Nothing more is sent while the first is on its way: one read at a time per pool.
    expect(db.sent()).toBe(1);
    await db.answer(0, 'v1');
    expect(await first).toBe('v1');
    // The first read was sent before they came: they get the one sent after it, all three the same.
    expect(db.sent()).toBe(2);
    await db.answer(1, 'v2');
    expect(await Promise.all(waiting)).toEqual(['v2', 'v2', 'v2']);
    // With none on its way, the next request sends its own.
    const later = sharedRead(pool, db.read);
    expect(db.sent()).toBe(3);
    await db.answer(2, 'v3');
    expect(await later).toBe('v3');
  });

  it('shares a failure with those waiting for that read only, and the next request reads again', async () => {
    const pool = {};
    const db = reads();
    const first = sharedRead(pool, db.read);
    const second = sharedRead(pool, db.read);
    await db.fail(0);
    await expect(first).rejects.toThrow('gone');
    await db.answer(1, 'v2');
    expect(await second).toBe('v2');
    const other = sharedRead({}, db.read);
    expect(db.sent()).toBe(3);
    await db.answer(2, 'elsewhere');
    expect(await other).toBe('elsewhere');
  });
});

describe('readAfterThisTurn (SQLite version reads)', () => {
  it('reads once for every request of one turn, after all of them, and again for a later turn', async () => {
    let committed = 1;
    let reads = 0;
    const read = async () => { reads += 1; return String(committed); };
    const connection = {};
    const first = readAfterThisTurn(connection, read);
    // A commit later in the same turn, which the next request's caller may have seen answered: both see it.
    committed = 2;
    const second = readAfterThisTurn(connection, read);
    expect(reads).toBe(0);
    expect(await Promise.all([first, second])).toEqual(['2', '2']);
    expect(reads).toBe(1);
    committed = 3;
    expect(await readAfterThisTurn(connection, read)).toBe('3');
    expect(reads).toBe(2);
  });

  it('gives a failed read to the requests of its turn only', async () => {
    const connection = {};
    let fail = true;
    const read = async () => { if (fail) throw new Error('gone'); return '7'; };
    const failed = readAfterThisTurn(connection, read);
    await expect(failed).rejects.toThrow('gone');
    fail = false;
    expect(await readAfterThisTurn(connection, read)).toBe('7');
  });
});

describe('sharedRead when a read never comes back', () => {
  it('lets a request that comes after the time limit send its own read', async () => {
    const pool = {};
    let sent = 0;
    const stuck = () => { sent += 1; return new Promise<string>(() => undefined); };
    void sharedRead(pool, stuck, 20);
    await new Promise((resolve) => setTimeout(resolve, 40));
    const own = sharedRead(pool, async () => { sent += 1; return 'v2'; }, 20);
    expect(await own).toBe('v2');
    expect(sent).toBe(2);
  });
});
