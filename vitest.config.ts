import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

/** Integration folders whose files pass one after another in one worker, on SQLite and on PostgreSQL. */
const SHARED_IMPORTS = ['test/graphql/**/*.test.ts', 'test/costs/**/*.test.ts', 'test/mcp/**/*.test.ts', 'test/dashboard/**/*.test.ts', 'test/coordination/**/*.test.ts', 'test/operations/**/*.test.ts'];

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
          // Files that start their server in-process and talk to it over HTTP, the MCP SDK or a browser: each opens its
          // own database and closes its server (and browser), so a worker runs them one after another on one import of
          // the app.
          // Importing the app again for each file (type-graphql's schema, TypeORM, Apollo) cost more than most of
          // the files' tests: test/costs took 323 s isolated and 171 s shared, on the same loaded machine.
          name: 'integration',
          include: SHARED_IMPORTS,
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          // Each file in a fresh process: a folder not in the list above until its files pass shared on both
          // databases. Every folder of test/ does now; a new one starts here.
          name: 'integration-isolated',
          include: ['test/**/*.test.ts'],
          exclude: SHARED_IMPORTS,
        },
      },
    ],
  },
});
