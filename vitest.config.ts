import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Workspace packages resolve to their TypeScript sources (the `source` export condition).
    conditions: ['source'],
  },
  ssr: {
    resolve: {
      conditions: ['source'],
    },
  },
  test: {
    include: [
      'packages/*/src/**/*.test.ts',
      'integrations/*/src/**/*.test.ts',
      'packages/dashboard/test/**/*.test.ts',
      'scripts/**/*.test.mjs',
    ],
    testTimeout: 20_000,
    // Fails the run if a workerd process it started is still running at its end.
    globalSetup: ['packages/platform/src/test-support/workerd-leaks.ts'],
  },
});
