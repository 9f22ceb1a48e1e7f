import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    environment: 'node',
    setupFiles: ['reflect-metadata'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each test file opens its own database file and server; two workers match the machine's two cores.
    pool: 'forks',
    maxWorkers: 2,
  },
});
