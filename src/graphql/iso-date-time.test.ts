import { DateTimeResolver } from 'graphql-scalars';
import { describe, expect, it } from 'vitest';
import { IsoDateTime } from './iso-date-time.js';

/** What graphql-scalars' DateTime put in an answer's text for a value: its serialize, then JSON.stringify. */
const asBefore = (value: unknown) => JSON.stringify(DateTimeResolver.serialize(value));
const asNow = (value: unknown) => JSON.stringify(IsoDateTime.serialize(value));

describe('IsoDateTime', () => {
  it('answers a stored time as it is, and as graphql-scalars answered it', () => {
    const start = Date.UTC(1970, 0, 1);
    const end = Date.UTC(2200, 0, 1);
    for (let i = 0; i < 2000; i += 1) {
      const stored = new Date(start + Math.floor(Math.random() * (end - start))).toISOString();
      expect(IsoDateTime.serialize(stored)).toBe(stored);
      expect(asNow(stored)).toBe(asBefore(stored));
    }
  });

  it('answers Dates, numbers and other forms of a time as graphql-scalars did', () => {
    for (const value of [new Date('2026-12-06T08:29:21.498Z'), 1796543061171, '2026-12-06T08:29:21Z', '2026-12-06T10:29:21.498+02:00', '2026-12-06T08:29:21.4Z']) {
      expect(asNow(value)).toBe(asBefore(value));
    }
  });

  it('refuses what graphql-scalars refused', () => {
    for (const value of ['yesterday', '2026-13-06T08:29:21.498Z', new Date(Number.NaN), { at: 1 }]) {
      expect(() => IsoDateTime.serialize(value)).toThrow(/DateTime cannot/);
    }
  });

  it('is the same scalar to clients: name, description, inputs', () => {
    expect(IsoDateTime.name).toBe(DateTimeResolver.name);
    expect(IsoDateTime.description).toBe(DateTimeResolver.description);
    expect(IsoDateTime.parseValue('2026-12-06T08:29:21.498Z')).toEqual(DateTimeResolver.parseValue('2026-12-06T08:29:21.498Z'));
  });
});
