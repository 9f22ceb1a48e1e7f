import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // Vite would give our sources graphql's ESM build while Apollo and
    // type-graphql load the CommonJS one; two copies break instanceof and
    // schema printing. Use the copy Node itself loads, as the built server does.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    environment: 'node',
    setupFiles: ['reflect-metadata'],
    // Generous: a timeout is a failure, and a loaded machine (CI beside other work) must not fail a correct test.
    testTimeout: 120_000,
    hookTimeout: 60_000,
    // Each test file opens its own database file and server; two workers match the machine's two cores.
    pool: 'forks',
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts'],
          // The unit tests are pure (no server, no database file, no environment they change), so one
          // worker runs many files on one import of the modules: importing them again for each file
          // cost four times what the tests themselves did.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
        },
      },
    ],
  },
});
