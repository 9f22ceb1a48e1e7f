import { describe, expect, it } from 'vitest';
import { DatabaseHealth } from './database-health.js';

const sqliteError = (code: string) => Object.assign(new Error('driver words'), { code });
/** As TypeORM throws them: the driver's error under driverError. */
const wrapped = (code: string) => Object.assign(new Error('query failed'), { driverError: sqliteError(code) });

describe('what /healthz reports from the writes', () => {
  it('reports a damaged file from the first write that met it, until restart', () => {
    const health = new DatabaseHealth(null);
    expect(health.report()).toEqual({ status: 'ok' });
    health.failed(wrapped('SQLITE_CORRUPT'));
    health.committed();
    expect(health.report()).toMatchObject({ status: 'unavailable', reason: 'database damaged', message: expect.stringMatching(/taskbase restore/) });
  });

  it('reports a full disk until a write commits, ignoring refusals and other failures', () => {
    let now = new Date('2026-12-07T10:00:00Z');
    const health = new DatabaseHealth(null, () => now);
    health.failed(new Error('a refusal'));
    health.failed(wrapped('SQLITE_CONSTRAINT'));
    expect(health.report()).toEqual({ status: 'ok' });
    health.failed(Object.assign(new Error('could not extend file'), { code: '53100' }));
    expect(health.report()).toMatchObject({ status: 'unavailable', reason: 'disk full', since: '2026-12-07T10:00:00.000Z' });
    health.committed();
    expect(health.report()).toEqual({ status: 'ok' });
    // A disk it cannot look at (PostgreSQL's): the report lapses after 30 s with no write to confirm it.
    health.failed(wrapped('SQLITE_FULL'));
    now = new Date('2026-12-07T10:00:29Z');
    expect(health.report().status).toBe('unavailable');
    now = new Date('2026-12-07T10:00:31Z');
    expect(health.report()).toEqual({ status: 'ok' });
  });
});
