import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

describe('TASKBASE_HEAP_GROWTH_PERCENT', () => {
  it('lets the heap grow by half what a full collection kept unless told otherwise, and 0 leaves it to V8', () => {
    expect(loadConfig({}).heapGrowthPercent).toBe(50);
    expect(loadConfig({ TASKBASE_HEAP_GROWTH_PERCENT: '0' }).heapGrowthPercent).toBe(0);
    expect(loadConfig({ TASKBASE_HEAP_GROWTH_PERCENT: ' 250 ' }).heapGrowthPercent).toBe(250);
  });

  it.each(['-5', 'lots', '1001', '50%'])('refuses %s, saying what it accepts', (value) => {
    expect(() => loadConfig({ TASKBASE_HEAP_GROWTH_PERCENT: value })).toThrow(
      `TASKBASE_HEAP_GROWTH_PERCENT must be a whole number from 0 to 1000 (percent the JavaScript heap may grow past a full collection's live data; 0 leaves it to V8; default 50); got "${value}".`,
    );
  });
});
