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
    include: ['packages/*/src/**/*.test.ts', 'integrations/*/src/**/*.test.ts'],
    testTimeout: 20_000,
  },
});
