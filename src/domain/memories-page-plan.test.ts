import { describe, expect, it } from 'vitest';
import { DOMAIN_WALK_START, memoriesPagePlan } from './memories-page-plan.js';

/** `count` domains of the same size, `matching` of each `memories` held by the filter. */
const domains = (count: number, memories: number, matching = memories) => Array.from({ length: count }, () => ({ memories, matching }));

describe('memoriesPagePlan', () => {
  // The bench's large scale: 125,000 ids, 500 leaf domains of 240 memories; a page of 50 reads 51.
  const span = 125_000;

  it('reads a scope holding a fifth of all memories over 100 domains in id order, with or without a filter', () => {
    expect(memoriesPagePlan(51, span, domains(100, 240))).toBe('ID_ORDER');
    expect(memoriesPagePlan(51, span, domains(100, 240, 60))).toBe('ID_ORDER');
    expect(memoriesPagePlan(51, span, domains(100, 240, 40))).toBe('ID_ORDER');
  });

  it('merges the walks of each domain for a team (5 domains, 1 %) and for one domain', () => {
    expect(memoriesPagePlan(51, span, domains(5, 240))).toBe('EACH_DOMAIN');
    expect(memoriesPagePlan(51, span, domains(5, 240, 40))).toBe('EACH_DOMAIN');
    expect(memoriesPagePlan(51, span, domains(1, 240))).toBe('EACH_DOMAIN');
    expect(memoriesPagePlan(51, span, domains(1, 240, 40))).toBe('EACH_DOMAIN');
  });

  it('reads many small domains in id order even when together they are a small share', () => {
    // 1,000 domains of 2 memories: 2,000 of 125,000 (1.6 %), yet 1,000 walks to start.
    expect(memoriesPagePlan(51, span, domains(1000, 2))).toBe('ID_ORDER');
  });

  it('reads one domain holding most of the table in id order', () => {
    expect(memoriesPagePlan(51, 1_000, domains(1, 900))).toBe('ID_ORDER');
  });

  it('weighs the id-order walk by the span, so a scope that holds few among many ids is merged', () => {
    const sixteen = domains(16, 6);
    expect(memoriesPagePlan(5, 100, sixteen)).toBe('ID_ORDER');
    // The same scope among 100,000 ids: 5 × 100,000 / 96 rows against 16 starts.
    expect(memoriesPagePlan(5, 100_000, sixteen)).toBe('EACH_DOMAIN');
  });

  it('chooses at the point where the rows read in id order pass the starts and walks of the merge', () => {
    // One domain of 10 matches: the merge reads a start and its 10 rows; id order reads limit × span / 10.
    const merge = DOMAIN_WALK_START + 10;
    expect(memoriesPagePlan(10, merge - 1, domains(1, 10))).toBe('ID_ORDER');
    expect(memoriesPagePlan(10, merge, domains(1, 10))).toBe('EACH_DOMAIN');
  });

  it('merges when nothing matches (nothing to walk)', () => {
    expect(memoriesPagePlan(51, span, [])).toBe('EACH_DOMAIN');
    expect(memoriesPagePlan(51, span, domains(3, 240, 0))).toBe('EACH_DOMAIN');
  });
});
